"""Restoring a project to a phase end, a polish iteration or a commit (`phases.rollback`), from
any door, with the words that say where it is now and what Start does next.

A restored project is idle: no run works on it until the person starts one, and until then another
restore (back, or forward again to a later point such as a revision's `done`) is allowed."""

from __future__ import annotations

from pydantic import BaseModel

from thoughtforge.core import git_repo
from thoughtforge.core.course_claim import claimed
from thoughtforge.core.project import Project
from thoughtforge.core.project_view import ProjectView, read_view
from thoughtforge.core.state import read_polish_state
from thoughtforge.errors import StateFileError
from thoughtforge.models import Phase
from thoughtforge.phases.rollback import COMMIT_PREFIX, rollback


class Restored(BaseModel):
    label: str
    phase: Phase
    note: str


def restore(project: Project, to: str, *, keep_edits: bool = False) -> Restored:
    """Back to `to` (a name from the history, or a commit id); refused while a run works on the
    project or waits in it, and over the person's uncommitted edits unless `keep_edits` commits
    them first (`phases.rollback`), and while another change of its course holds the project
    (`ProjectClaimed`)."""
    with claimed(project, "rollback"):
        outcome = rollback(project, to, keep_edits=keep_edits)
    note = f"Restored {outcome.label}: {resting_words(read_view(project))}"
    return Restored(label=outcome.label, phase=outcome.phase, note=note)


def restored_point(view: ProjectView) -> str | None:
    """The point the project was last restored to ("polish-1 (abc1234)"), while it is idle there:
    nothing was committed since and no run holds it."""
    if view.holds:
        return None
    last = git_repo.log_records(view.project.dir, "%s", last=1)
    if not last or not last[-1][0].startswith(COMMIT_PREFIX):
        return None
    return last[-1][0].removeprefix(COMMIT_PREFIX).split(": ", 1)[0]


def resting_words(view: ProjectView) -> str:
    """Where a restored project is idle and what Start will do with it."""
    phase = view.status.phase
    return (
        f"the project is in {phase.value} and no run works on it. {_start_does(view)} "
        "Until then another restore is allowed, to any point in its history."
    )


def _start_does(view: ProjectView) -> str:
    phase = view.status.phase
    if phase is Phase.DONE:
        return "Nothing is left to run: it is done (Revise starts a new revision)."
    if phase is Phase.HALTED:
        return "Resume goes on from where it halted."
    if phase is Phase.POLISHING:
        try:
            iteration = read_polish_state(view.project.dir).iteration
        except StateFileError:
            return "Start polishes it on."
        return f"Start polishes on from iteration {iteration + 1}."
    if phase is Phase.BUILDING:
        return "Start builds the deliverable again from the locked spec."
    if phase is Phase.SPEC_BUILDING:
        return "Start proposes the spec again from the locked intent."
    return f"Start goes on from {phase.value}."
