"""The person's edit of the AI's draft (the distillation, or the spec proposal): saved as the
draft (`phases.draft_edits`, checked as the AI's draft is), and with `confirm`, then confirmed
exactly as the Confirm button confirms it."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from thoughtforge.actions.answering import Answer, Outcome, Starter, chat_turn
from thoughtforge.actions.composer import Composer
from thoughtforge.actions.run_state import composer_of, project_view
from thoughtforge.actions.starting import start_run
from thoughtforge.config import Config
from thoughtforge.core import Project
from thoughtforge.core.project_view import ProjectView
from thoughtforge.errors import ActionRefused
from thoughtforge.phases.draft_edits import save_edit


class DraftEdit(BaseModel):
    """The person's edit of the AI's draft: the text, the version of the draft it was made
    from, and whether Confirm follows ("Save and confirm") or not ("Save")."""

    text: str
    version: str
    confirm: bool = False


def check_edit(composer: Composer) -> None:
    """Refused while the AI works on the draft (it is about to write a newer one), in the words
    every door shows."""
    if not (composer.allows("confirm") or composer.allows("start")):
        raise ActionRefused(f"The draft cannot be edited now. {composer.note}")


def take_edit(
    config: Config,
    config_file: Path,
    project: Project,
    edit: DraftEdit,
    start: Starter = start_run,
    *,
    view: ProjectView | None = None,
) -> Outcome:
    """Save the edited draft; with `confirm`, then Confirm it, so a waiting run (a resting one
    woken), a run to start, and another answer arriving first are all met as they are there.
    Refused while the AI works on the draft (it is about to write a newer one): the page keeps
    the text in its box. `view`: the project's view, when the door has read it for this
    request already."""
    view = view or project_view(config, project)
    check_edit(composer_of(view))
    save_edit(project, edit.text, edit.version, confirming=edit.confirm)
    if not edit.confirm:
        return Outcome(delivery="saved", note="Saved: your edit is the draft now.")
    outcome = chat_turn(config, config_file, project, Answer(action="confirm"), start, view=view)
    return outcome.model_copy(update={"note": f"Saved your edit. {outcome.note}"})
