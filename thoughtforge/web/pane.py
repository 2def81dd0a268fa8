"""The deliverable pane beside the conversation: what the person and the AI are making, as it
stands now. In Phases 1–2 that is the draft under review (the distillation, then the spec
proposal with the items still open); from Phase 3 it is the deliverable itself (`progress`).

Its head says in a person's words what the pane shows at this phase; at `done` it carries what
comes next (History, Revise, Archive) so they are in reach without scrolling.
"""

from __future__ import annotations

from pydantic import BaseModel

from thoughtforge.actions.draft import draft_under_review
from thoughtforge.core.project import Project
from thoughtforge.core.state import Status
from thoughtforge.models import CONVERSATION_PHASES, Phase
from thoughtforge.web.thread import render_markdown


class DraftView(BaseModel):
    """The draft a Confirm would lock now, rendered (inert) for the pane."""

    kind: str
    html: str
    open_items: list[str] = []
    """A spec proposal's Unknowns and Open Questions not resolved yet."""


class PaneHead(BaseModel):
    title: str
    note: str


_HEADS: dict[Phase, PaneHead] = {
    Phase.BRAIN_DUMP: PaneHead(
        title="Your intent",
        note="When you press Distill, the AI's distillation of your brain dump appears here, "
        "to correct in the chat or edit before you Confirm it.",
    ),
    Phase.DISTILLING: PaneHead(
        title="Your intent",
        note="The AI is distilling your brain dump: its draft appears here.",
    ),
    Phase.HUMAN_REVIEW: PaneHead(
        title="Your intent (draft)",
        note="Correct it in the chat, or edit it directly; Confirm locks it.",
    ),
    Phase.SPEC_BUILDING: PaneHead(
        title="The spec (draft)",
        note="Change it in the chat, or edit it directly; Confirm locks it and the build starts.",
    ),
    Phase.BUILDING: PaneHead(
        title="The deliverable, being built",
        note="Each part appears here as it is written.",
    ),
    Phase.POLISHING: PaneHead(
        title="The deliverable, being polished",
        note="Each review's findings, and the fixes, as they land.",
    ),
    Phase.DONE: PaneHead(
        title="The deliverable",
        note="Final. Revise to change it; History has every version, to compare or restore.",
    ),
    Phase.HALTED: PaneHead(
        title="The deliverable so far",
        note="Halted: the conversation says what it needs to go on.",
    ),
}


_STOPPED = {Phase.BUILDING: "building", Phase.POLISHING: "polishing"}


def pane_head(phase: Phase, halted_from: Phase | None = None, *, stopped: bool = False) -> PaneHead:
    """A halt before the spec was locked has no deliverable yet: the pane names the draft.
    `stopped`: nothing works on the project (a restore, a killed run), so Phases 3–4 are not
    "being" done; the pane says how they go on."""
    if phase is Phase.HALTED and halted_from in CONVERSATION_PHASES:
        return _HEADS[Phase.HALTED].model_copy(update={"title": _HEADS[halted_from].title})
    if stopped and phase in _STOPPED:
        return PaneHead(
            title=f"The deliverable, {_STOPPED[phase]} paused",
            note="Nothing is working on it now: Start the run to go on from here.",
        )
    return _HEADS[phase]


def draft_view(project: Project, status: Status) -> DraftView | None:
    """The draft under review (`actions.draft`), rendered; None outside Phases 1–2's review or
    before the first draft."""
    draft = draft_under_review(project, status)
    if draft is None:
        return None
    return DraftView(kind=draft.kind, html=render_markdown(draft.text), open_items=draft.open_items)
