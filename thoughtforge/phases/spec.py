"""Phase 2: agree a spec and acceptance criteria on top of the locked intent, then lock them.

The agent presents one complete proposal per turn; the human corrects it in the chat until Confirm.
Confirm is refused while anything is unresolved or no acceptance criterion exists.

An item is unresolved when the Resolved Unknowns section marks it `UNRESOLVED:`, or when it is an
Unknown or Open Question of `intent.md` that Resolved Unknowns does not mention. "Mentions" means
the item's words appear there nearly verbatim: after lowercasing and reducing both texts to letters
and digits, rapidfuzz's `partial_ratio` of the item against the section is at least
`MENTION_SCORE`. The prompt asks the agent to quote every item word for word.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel
from rapidfuzz import fuzz

from thoughtforge.adapters.agents import AgentCall, invoke_agent
from thoughtforge.atomic_write import write_text_atomic
from thoughtforge.config import Config
from thoughtforge.context_window import estimate_tokens
from thoughtforge.conversation import fit_conversation
from thoughtforge.errors import ThoughtForgeError, TransitionError
from thoughtforge.git_repo import commit_all
from thoughtforge.markdown_sections import SectionedText, heading_key, list_items, strip_outer_fence
from thoughtforge.models import DeliverableType, Phase
from thoughtforge.project import CONSTRAINTS_FILE, INTENT_FILE, SPEC_FILE, Project
from thoughtforge.project_log import log_event
from thoughtforge.prompts import PromptLibrary
from thoughtforge.state import ChatMessage, Status, append_chat, read_chat, write_chat
from thoughtforge.transition import transition

SPEC_SECTIONS = (
    "Deliverable Overview",
    "Deliverable Structure",
    "Key Decisions",
    "Resolved Unknowns",
    "Dependencies",
    "Scope Boundaries",
)
CONSTRAINT_ONLY_SECTIONS = (
    "Priorities",
    "Exclusions",
    "Severity Definitions",
    "Acceptance Criteria",
)
UNRESOLVED_MARK = "UNRESOLVED:"
MENTION_SCORE = 90
RETRY_NOTICE = "AI did not generate acceptance criteria. Retrying."
NO_CRITERIA = (
    "At least one acceptance criterion is required before proceeding. Add acceptance criteria "
    "or confirm the AI's proposed set."
)

NO_PROPOSAL = "There is no proposal to confirm yet."

_STEP = "spec-building"
_ALL_SECTIONS = SPEC_SECTIONS + CONSTRAINT_ONLY_SECTIONS
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")


class SpecIncomplete(ThoughtForgeError):
    """The agent twice proposed a spec without an Acceptance Criteria section."""


class SpecProposal(BaseModel):
    text: str
    sections: dict[str, str]
    acceptance_criteria: list[str]
    unresolved: list[str]

    def section(self, name: str) -> str:
        """The body of section `name` (any case); empty when the proposal has no such section."""
        key = heading_key(name)
        return next((body for head, body in self.sections.items() if heading_key(head) == key), "")


class ConfirmOutcome(BaseModel):
    accepted: bool
    remaining: list[str]


def propose(project: Project, config: Config) -> SpecProposal:
    """The complete proposal, asked for once more if it comes without acceptance criteria."""
    status = _require_spec_building(project)
    intent = _read_intent(project)
    prompt = _spec_prompt(project, config, status.agent, intent)
    call = AgentCall(step=_STEP, project_dir=project.dir, phase=Phase.SPEC_BUILDING.value)
    answer = strip_outer_fence(invoke_agent(config, status.agent, prompt, call))
    if not _has_criteria_section(answer):
        log_event(project.dir, "acceptance_criteria_missing", level="warning", attempt=1)
        _say(project, "system", RETRY_NOTICE)
        retry = (
            f"{prompt}\n\nYour previous answer had no `## Acceptance Criteria` section. Answer "
            "again with the complete proposal, including acceptance criteria derived from the "
            "confirmed intent and the decisions above."
        )
        answer = strip_outer_fence(invoke_agent(config, status.agent, retry, call))
    _say(project, "ai", answer)
    if not _has_criteria_section(answer):
        raise SpecIncomplete(
            "The agent twice proposed a spec without an Acceptance Criteria section."
        )
    return _parse_proposal(answer, intent)


def latest_proposal(project: Project) -> SpecProposal | None:
    """The last proposal in the Phase 2 chat: an AI message with at least one spec section."""
    for message in reversed(read_chat(project.dir)):
        if message.role == "ai" and message.phase is Phase.SPEC_BUILDING:
            document = SectionedText.parse(message.content)
            if any(document.get(name) is not None for name in _ALL_SECTIONS):
                return _parse_proposal(message.content, _read_intent(project))
    return None


def confirm_spec(project: Project, config: Config) -> ConfirmOutcome:
    """Lock `spec.md` and `constraints.md` and start Phase 3, unless something is still open.

    A file-system error writing the documents propagates: there is no retry. The chat is cleared
    after the transition, as in Phase 1, so a crash in between cannot lose the proposal.
    """
    status = _require_spec_building(project)
    proposal = latest_proposal(project)
    remaining = _remaining(proposal)
    if proposal is None or remaining:
        _say(project, "ai", _refusal(proposal))
        return ConfirmOutcome(accepted=False, remaining=remaining)
    intent = SectionedText.parse(_read_intent(project))
    name = status.project_name or project.id
    write_text_atomic(project.dir / SPEC_FILE, _spec_document(name, proposal))
    write_text_atomic(
        project.dir / CONSTRAINTS_FILE, _constraints_document(name, status, intent, proposal)
    )
    commit_all(project.dir, "Lock spec.md and constraints.md")
    transition(project, Phase.BUILDING)
    write_chat(project.dir, [])
    return ConfirmOutcome(accepted=True, remaining=[])


# --- the proposal ----------------------------------------------------------------------------


def _parse_proposal(text: str, intent: str) -> SpecProposal:
    document = SectionedText.parse(text)
    resolved = document.get("Resolved Unknowns") or ""
    marked = [item for item in list_items(resolved) if UNRESOLVED_MARK.lower() in item.lower()]
    intent_document = SectionedText.parse(intent)
    asked = [
        item
        for name in ("Unknowns", "Open Questions")
        for item in list_items(intent_document.get(name) or "")
    ]
    sections: dict[str, str] = {}
    for section in document.sections:
        sections.setdefault(section.heading, section.body)
    return SpecProposal(
        text=text,
        sections=sections,
        acceptance_criteria=list_items(document.get("Acceptance Criteria") or ""),
        unresolved=marked + [item for item in asked if not _mentions(resolved, item)],
    )


def _mentions(section: str, item: str) -> bool:
    needle, haystack = _letters(item), _letters(section)
    if not needle:
        return True
    return len(needle) <= len(haystack) and fuzz.partial_ratio(needle, haystack) >= MENTION_SCORE


def _letters(text: str) -> str:
    return _NOT_ALNUM.sub(" ", text.lower()).strip()


def _has_criteria_section(answer: str) -> bool:
    return SectionedText.parse(answer).get("Acceptance Criteria") is not None


def _remaining(proposal: SpecProposal | None) -> list[str]:
    if proposal is None:
        return [NO_PROPOSAL]
    return proposal.unresolved + ([] if proposal.acceptance_criteria else [NO_CRITERIA])


def _refusal(proposal: SpecProposal | None) -> str:
    if proposal is None:
        return NO_PROPOSAL
    parts = []
    if proposal.unresolved:
        items = "\n".join(f"- {item}" for item in proposal.unresolved)
        parts.append(
            "Confirm is blocked: these Unknowns and Open Questions are still unresolved. Answer "
            f"them in the chat (or ask me to decide) and I will update the proposal.\n\n{items}"
        )
    if not proposal.acceptance_criteria:
        parts.append(NO_CRITERIA)
    return "\n\n".join(parts)


# --- the conversation and the files ----------------------------------------------------------


def _spec_prompt(project: Project, config: Config, agent: str, intent: str) -> str:
    """The spec prompt cut to the agent's window: the intent stays, the oldest turns go."""
    prompts = PromptLibrary(config.prompts.directory)
    overhead = estimate_tokens(prompts.render(_STEP, intent=intent, conversation=""))
    room = config.agent(agent).context_window_tokens - overhead
    turns = [
        m for m in read_chat(project.dir) if m.phase is Phase.SPEC_BUILDING and m.role != "system"
    ]
    conversation = fit_conversation(turns, room)
    if conversation.dropped:
        dropped = conversation.dropped
        log_event(project.dir, "context_truncated", level="warning", dropped=dropped)
        _say(
            project,
            "system",
            f"The conversation did not fit the agent's context window: {dropped} older "
            "message(s) were left out.",
        )
    return prompts.render(_STEP, intent=intent, conversation=conversation.text or "(none yet)")


def _say(project: Project, role: Literal["ai", "system"], text: str) -> None:
    append_chat(project.dir, ChatMessage(role=role, content=text, phase=Phase.SPEC_BUILDING))


def _read_intent(project: Project) -> str:
    return (project.dir / INTENT_FILE).read_text(encoding="utf-8")


def _spec_document(name: str, proposal: SpecProposal) -> str:
    return _document(f"Spec: {name}", {s: proposal.section(s) for s in SPEC_SECTIONS})


def _constraints_document(
    name: str, status: Status, intent: SectionedText, proposal: SpecProposal
) -> str:
    """What the Phase 4 reviewer judges against, re-read at every polish iteration."""
    deliverable_type = status.deliverable_type or DeliverableType.PLAN
    scope = [proposal.section("Deliverable Structure"), proposal.section("Scope Boundaries")]
    sections = {
        "Context": intent.get("Objective") or "",
        "Deliverable Type": deliverable_type.value.capitalize(),
        "Priorities": proposal.section("Priorities"),
        "Exclusions": proposal.section("Exclusions"),
        "Severity Definitions": proposal.section("Severity Definitions"),
        "Scope": "\n\n".join(part for part in scope if part),
        "Acceptance Criteria": "\n".join(f"- {c}" for c in proposal.acceptance_criteria),
    }
    return _document(f"Constraints: {name}", sections)


def _document(title: str, sections: dict[str, str]) -> str:
    body = "\n\n".join(
        f"## {h}\n\n{text.strip() or 'None stated.'}" for h, text in sections.items()
    )
    return f"# {title}\n\n{body}\n"


def _require_spec_building(project: Project) -> Status:
    status = project.status()
    if status.phase is not Phase.SPEC_BUILDING:
        raise TransitionError(f"project {project.id} is in '{status.phase}', not 'spec_building'")
    return status
