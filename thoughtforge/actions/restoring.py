"""Restoring a project to a phase end, a polish iteration or a commit (`phases.rollback`), from
any door, with the one line that says where it is now."""

from __future__ import annotations

from pydantic import BaseModel

from thoughtforge.core import Project
from thoughtforge.models import Phase
from thoughtforge.phases.rollback import rollback


class Restored(BaseModel):
    label: str
    phase: Phase
    note: str


def restore(project: Project, to: str, *, keep_edits: bool = False) -> Restored:
    """Back to `to` (a name from the history, or a commit id); refused while a run works on the
    project, and over the person's uncommitted edits unless `keep_edits` commits them first
    (`phases.rollback`)."""
    outcome = rollback(project, to, keep_edits=keep_edits)
    note = f"Restored {outcome.label}: the project is in {outcome.phase}."
    return Restored(label=outcome.label, phase=outcome.phase, note=note)
