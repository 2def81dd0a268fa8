"""The person edits the AI's draft directly: the distillation under review (Phase 1) or the spec
proposal (Phase 2), instead of correcting it by chat.

An edit passes the checks the agent's draft passes (`intake.usable_distillation`,
`spec.usable_proposal`), and never loses a section the draft had; Phase 1 keeps at most
`MAX_OPEN_QUESTIONS` open questions (the agent's extra ones are dropped, a person's are refused,
since nothing they type is thrown away). An edit meant to be confirmed at once must also pass what
Confirm asks (Phase 2: no open item, an acceptance criterion), so a refused Confirm never leaves a
half-done edit behind.

A saved edit is the newest draft: an AI message marked `edited`, so Confirm (`confirm_intent`,
`confirm_spec`) locks it, the AI's next turn reads it (as the draft the person edited), and the
thread says who wrote it. An edit carries the `version` of the draft it was made from; when the AI
wrote a newer draft meanwhile, it is refused, so it never replaces a draft its author has not
seen. A refused edit is never dropped: the page keeps it in its box, the CLI in `rejected/`.
"""

from __future__ import annotations

import hashlib
from typing import Literal

from pydantic import BaseModel

from thoughtforge.core.atomic_write import write_text_atomic
from thoughtforge.core.own_files import read_own_text
from thoughtforge.core.project import INTENT_FILE, Project
from thoughtforge.core.project_log import log_event
from thoughtforge.core.staging import REJECTED_DIR
from thoughtforge.core.state import ChatMessage, append_chat, read_chat, read_thread, utc_now
from thoughtforge.errors import DraftRefused, UnusableReply
from thoughtforge.models import PHASE_ONE, Phase
from thoughtforge.phases.intake import MAX_OPEN_QUESTIONS, usable_distillation
from thoughtforge.phases.intent import INTENT_SECTIONS
from thoughtforge.phases.spec import usable_proposal
from thoughtforge.phases.spec_proposal import (
    ALL_SECTIONS,
    is_proposal,
    parse_proposal,
    refusal,
    remaining_items,
)
from thoughtforge.prompting import SectionedText, heading_key, list_items

EDITABLE_PHASES = frozenset({Phase.HUMAN_REVIEW, Phase.SPEC_BUILDING})
"""Where a draft waits for the person's Confirm."""
DraftKind = Literal["distillation", "spec proposal"]


class Draft(BaseModel):
    """The draft a Confirm would lock now, and the version an edit of it names."""

    kind: DraftKind
    text: str
    version: str
    index: int
    """Its place in the chat the thread shows (`read_thread`), for the page's Edit."""


def version_of(text: str) -> str:
    """A short fingerprint of a draft's text: what an edit says it was made from."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def current_draft(project: Project) -> Draft:
    """The distillation under review or the latest spec proposal; `DraftRefused` saying why
    there is none to edit (another phase, or no draft yet)."""
    phase = project.status().phase
    if phase not in EDITABLE_PHASES:
        raise DraftRefused(
            f"project {project.id} is in '{phase}': only a distillation under review (Phase 1) "
            "or a spec proposal (Phase 2) can be edited"
        )
    chat = read_chat(project.dir)
    offset = _thread_offset(project, len(chat))
    for index in reversed(range(len(chat))):
        message = chat[index]
        if message.role != "ai":
            continue
        if phase is Phase.HUMAN_REVIEW and _is_distillation(message):
            return _draft("distillation", message, offset + index)
        if phase is Phase.SPEC_BUILDING and message.phase is phase and is_proposal(message.content):
            return _draft("spec proposal", message, offset + index)
    raise DraftRefused(f"project {project.id} has no draft to edit yet")


def checked_edit(project: Project, draft: Draft, text: str, *, confirming: bool) -> str:
    """The edited text as it will be saved (headings normalised), or `DraftRefused` saying
    what is wrong with it."""
    if not text.strip():
        raise DraftRefused(f"the edited {draft.kind} is empty: nothing was saved")
    try:
        if draft.kind == "distillation":
            edited, document = usable_distillation(text)
            _refuse_many_questions(document)
        else:
            edited = usable_proposal(text)
    except UnusableReply as exc:
        raise DraftRefused(f"the edited {draft.kind} cannot be used: {exc}") from None
    _refuse_lost_sections(draft, edited)
    if confirming and draft.kind == "spec proposal":
        proposal = parse_proposal(edited, read_own_text(project.dir / INTENT_FILE))
        if remaining_items(proposal):
            raise DraftRefused(
                "it cannot be confirmed yet (Save keeps it as the draft without confirming). "
                + refusal(proposal)
            )
    return edited.strip()


def save_edit(project: Project, text: str, version: str, *, confirming: bool) -> Draft:
    """Check the edit against the draft it was made from, then store it as the newest draft."""
    draft = current_draft(project)
    if version != draft.version:
        raise DraftRefused(
            f"the {draft.kind} changed since you opened it (a newer one was written): your "
            "edit was not saved; compare it with the newest draft and edit that one"
        )
    edited = checked_edit(project, draft, text, confirming=confirming)
    phase = project.status().phase  # Phase 1's edit is the review's, not a distillation
    message = ChatMessage(role="ai", content=edited, phase=phase, edited=True)
    append_chat(project.dir, message)
    log_event(project.dir, "draft_edited", kind=draft.kind, made_from=version)
    return current_draft(project)


def keep_refused_edit(project: Project, text: str) -> str:
    """Write an edit that was not saved where the person finds it again (`rejected/`, kept with
    the project's own files); the path relative to the project."""
    relpath = f"{REJECTED_DIR}/{utc_now():%Y%m%dT%H%M%S%f}-draft-edit.md"
    (project.dir / REJECTED_DIR).mkdir(exist_ok=True)
    write_text_atomic(project.dir / relpath, text)
    log_event(project.dir, "draft_edit_refused", level="warning", kept=relpath)
    return relpath


def _draft(kind: DraftKind, message: ChatMessage, index: int) -> Draft:
    return Draft(
        kind=kind,
        text=message.content,
        version=version_of(message.content),
        index=index,
    )


def is_draft(message: ChatMessage) -> bool:
    """A distillation or a spec proposal of the AI's (or one the person edited)."""
    if message.role != "ai":
        return False
    if message.phase is Phase.SPEC_BUILDING:
        return is_proposal(message.content)
    return _is_distillation(message)


def _is_distillation(message: ChatMessage) -> bool:
    """As `intent.confirm_intent` finds the distillation it locks."""
    is_complete = not SectionedText.parse(message.content).missing(INTENT_SECTIONS)
    return message.phase in PHASE_ONE and is_complete


def _thread_offset(project: Project, chat_length: int) -> int:
    """How many archived messages come before the chat in the thread (earlier phases')."""
    return len(read_thread(project.dir)) - chat_length


def _refuse_many_questions(document: SectionedText) -> None:
    questions = list_items(document.get("Open Questions") or "")
    if len(questions) > MAX_OPEN_QUESTIONS:
        raise DraftRefused(
            f"the edited distillation has {len(questions)} open questions; at most "
            f"{MAX_OPEN_QUESTIONS} are kept: answer or merge the others"
        )


def _refuse_lost_sections(draft: Draft, edited: str) -> None:
    names = INTENT_SECTIONS if draft.kind == "distillation" else ALL_SECTIONS
    had = SectionedText.parse(draft.text)
    has = {heading_key(s.heading) for s in SectionedText.parse(edited).sections}
    lost = [n for n in names if had.get(n) is not None and heading_key(n) not in has]
    if lost:
        headings = ", ".join(f"## {name}" for name in lost)
        raise DraftRefused(f"the edited {draft.kind} lost the draft's {headings} section(s)")
