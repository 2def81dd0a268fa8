"""Phase 2: agree a spec and acceptance criteria on top of the locked intent, then lock them.

The agent presents one complete proposal per turn; the human corrects it in the chat until Confirm.
Confirm is refused while anything is unresolved or no acceptance criterion exists
(`spec_proposal` says what counts as unresolved).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from thoughtforge.adapters.agents import AgentCall, invoke_agent
from thoughtforge.config import Config
from thoughtforge.core import (
    CONSTRAINTS_FILE,
    INTENT_FILE,
    SPEC_FILE,
    ChatMessage,
    Project,
    Status,
    append_chat,
    commit_own,
    log_event,
    read_chat,
    transition,
    write_chat,
    write_text_atomic,
)
from thoughtforge.errors import ThoughtForgeError, TransitionError, UnusableAnswer
from thoughtforge.models import DeliverableType, Phase
from thoughtforge.phases.engine import ask_until_usable, reask
from thoughtforge.phases.spec_proposal import (
    SPEC_SECTIONS,
    SpecProposal,
    has_criteria_section,
    is_proposal,
    parse_proposal,
    refusal,
    remaining_items,
)
from thoughtforge.prompting import (
    PromptLibrary,
    SectionedText,
    estimate_tokens,
    fit_conversation,
    strip_outer_fence,
)

RETRY_NOTICE = "AI did not generate acceptance criteria. Retrying."
_STEP = "spec-building"
_AGAIN = (
    "Answer again with the complete proposal, including acceptance criteria derived from the "
    "confirmed intent and the decisions above."
)


class SpecIncomplete(ThoughtForgeError):
    """The agent twice proposed a spec without an Acceptance Criteria section."""


class ConfirmOutcome(BaseModel):
    accepted: bool
    remaining: list[str]


def propose(project: Project, config: Config) -> SpecProposal:
    """The complete proposal, asked for once more if it comes without acceptance criteria."""
    status = _require_spec_building(project)
    intent = _read_intent(project)
    prompt = _spec_prompt(project, config, status.agent, intent)
    call = AgentCall(step=_STEP, project_dir=project.dir, phase=Phase.SPEC_BUILDING.value)

    def use(answer: str) -> str:
        answer = strip_outer_fence(answer)
        if not has_criteria_section(answer):
            raise UnusableAnswer("it had no `## Acceptance Criteria` section", answer)
        return answer

    def retry_notice(attempt: int, why: UnusableAnswer) -> None:
        log_event(project.dir, "acceptance_criteria_missing", level="warning", attempt=attempt)
        if attempt == 1:
            _say(project, "system", RETRY_NOTICE)

    try:
        answer = ask_until_usable(
            lambda text: invoke_agent(config, status.agent, text, call),
            lambda refused: prompt if refused is None else reask(prompt, str(refused), _AGAIN),
            use,
            attempts=2,
            on_unusable=retry_notice,
        )
    except UnusableAnswer as exc:
        _say(project, "ai", exc.answer)
        raise SpecIncomplete(
            "The agent twice proposed a spec without an Acceptance Criteria section."
        ) from None
    _say(project, "ai", answer)
    return parse_proposal(answer, intent)


def latest_proposal(project: Project) -> SpecProposal | None:
    """The last proposal in the Phase 2 chat."""
    for message in reversed(read_chat(project.dir)):
        is_ai = message.role == "ai" and message.phase is Phase.SPEC_BUILDING
        if is_ai and is_proposal(message.content):
            return parse_proposal(message.content, _read_intent(project))
    return None


def confirm_spec(project: Project, config: Config) -> ConfirmOutcome:
    """Lock `spec.md` and `constraints.md` and start Phase 3, unless something is still open.

    A file-system error writing the documents propagates: there is no retry. The chat is cleared
    after the transition, as in Phase 1, so a crash in between cannot lose the proposal.
    """
    status = _require_spec_building(project)
    proposal = latest_proposal(project)
    remaining = remaining_items(proposal)
    if proposal is None or remaining:
        _say(project, "ai", refusal(proposal))
        return ConfirmOutcome(accepted=False, remaining=remaining)
    intent = SectionedText.parse(_read_intent(project))
    name = status.project_name or project.id
    write_text_atomic(project.dir / SPEC_FILE, _spec_document(name, proposal))
    write_text_atomic(
        project.dir / CONSTRAINTS_FILE, _constraints_document(name, status, intent, proposal)
    )
    commit_own(project.dir, "Lock spec.md and constraints.md")
    transition(project, Phase.BUILDING)
    write_chat(project.dir, [])
    return ConfirmOutcome(accepted=True, remaining=[])


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
