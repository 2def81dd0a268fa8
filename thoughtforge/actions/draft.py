"""The AI's draft under review (the distillation, or the spec proposal) as the doors read it
(`draft_to_edit`, `draft_under_review`), and the person's edit of it: saved as the draft
(`phases.draft_edits`, checked as the AI's draft is), and with `confirm`, then confirmed exactly
as the Confirm button confirms it."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from thoughtforge.actions.answering import Answer, Outcome, Starter, chat_turn
from thoughtforge.actions.composer import Composer
from thoughtforge.actions.run_state import composer_of, current_composer, project_view
from thoughtforge.actions.starting import start_run
from thoughtforge.config import Config
from thoughtforge.core.project import Project
from thoughtforge.core.project_view import ProjectView
from thoughtforge.core.state import Status
from thoughtforge.errors import ActionRefused, DraftRefused
from thoughtforge.models import Phase
from thoughtforge.phases.draft_edits import Draft, current_draft, save_edit
from thoughtforge.phases.draft_edits import keep_refused_edit as keep_in_rejected
from thoughtforge.phases.spec import latest_proposal

DRAFT_PHASES = frozenset({Phase.HUMAN_REVIEW, Phase.SPEC_BUILDING})


class DraftEdit(BaseModel):
    """The person's edit of the AI's draft: the text, the version of the draft it was made
    from, and whether Confirm follows ("Save and confirm") or not ("Save")."""

    text: str
    version: str
    confirm: bool = False


class DraftUnderReview(BaseModel):
    """The draft a Confirm would lock now, as the deliverable pane shows it."""

    kind: str
    text: str
    open_items: list[str] = []
    """A spec proposal's Unknowns and Open Questions not resolved yet."""


def draft_to_edit(project: Project) -> Draft:
    """The draft Confirm would lock now, with the version an edit of it names; `DraftRefused`
    when there is none to edit."""
    return current_draft(project)


def draft_under_review(project: Project, status: Status) -> DraftUnderReview | None:
    """The draft under review, or None outside Phases 1–2's review or before the first draft."""
    if status.phase not in DRAFT_PHASES:
        return None
    try:
        draft = current_draft(project)
    except DraftRefused:
        return None
    items = open_items(project) if status.phase is Phase.SPEC_BUILDING else []
    return DraftUnderReview(kind=draft.kind, text=draft.text, open_items=items)


def open_items(project: Project) -> list[str]:
    """What the latest spec proposal leaves unresolved (what "Confirm, open items unresolved"
    would accept as it is)."""
    proposal = latest_proposal(project)
    return proposal.unresolved if proposal is not None else []


def check_edit(composer: Composer) -> None:
    """Refused while the AI works on the draft (it is about to write a newer one), in the words
    every door shows."""
    if not (composer.allows("confirm") or composer.allows("start")):
        raise ActionRefused(f"The draft cannot be edited now. {composer.note}")


def editable_draft(config: Config, project: Project) -> Draft:
    """The draft to edit, if it may be edited now: refused as every door refuses it
    (`check_edit`), before the person starts typing (the CLI's editor opens on it)."""
    check_edit(current_composer(config, project))
    return current_draft(project)


def save_draft_edit(project: Project, edit: DraftEdit) -> None:
    """The edit stored as the newest draft, checked against the draft it was made from and as
    the AI's draft is (for a Confirm to follow, with `confirm`); `DraftRefused` saves nothing."""
    save_edit(project, edit.text, edit.version, confirming=edit.confirm)


def keep_refused_edit(project: Project, text: str) -> Path:
    """Where an edit that was not saved is kept for the person to fix (`rejected/`)."""
    return project.dir / keep_in_rejected(project, text)


def take_edit(
    config: Config,
    config_file: Path,
    project: Project,
    edit: DraftEdit,
    start: Starter = start_run,
    *,
    view: ProjectView | None = None,
) -> Outcome:
    """Save the edited draft; with `confirm`, then Confirm it, so a waiting run (a suspended one
    woken), a run to start, and another answer arriving first are all met as they are there.
    Refused while the AI works on the draft (it is about to write a newer one): the page keeps
    the text in its box. `view`: the project's view, when the door has read it for this
    request already."""
    view = view or project_view(config, project)
    check_edit(composer_of(view))
    save_draft_edit(project, edit)
    if not edit.confirm:
        return Outcome(delivery="saved", note="Saved: your edit is the draft now.")
    outcome = chat_turn(config, config_file, project, Answer(action="confirm"), start, view=view)
    return outcome.model_copy(update={"note": f"Saved your edit. {outcome.note}"})
