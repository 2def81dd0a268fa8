"""Phase 2: agree a spec and acceptance criteria on top of the locked intent, then lock them.

The agent presents one complete proposal per turn; the human corrects it in the chat until Confirm.
Confirm is refused while anything is unresolved or no acceptance criterion exists
(`spec_proposal` says what counts as unresolved).

What Deliverable Structure asks for is the deliverable type's own part of the prompt
(`spec-building-<type>`, from its plugin). A plugin may have a discovery hook (the code plugin's
Open Source Discovery, switched on by `code.discovery`). It runs after each proposal, whose
`## Open Source Discovery` section it writes, so the human sees the scorecards with the proposal
they confirm; Confirm locks that section into `spec.md`. An agent that fails or answers unusably
twice costs the section its content, never the spec: the chat and the section say that discovery
could not run.

What Confirm writes, `spec.md` and `constraints.md`, is laid out by `spec_documents`.
"""

from __future__ import annotations

from textwrap import shorten
from typing import Literal

from pydantic import BaseModel

from thoughtforge.config import Config
from thoughtforge.core.atomic_write import write_text_atomic
from thoughtforge.core.own_files import read_own_text
from thoughtforge.core.project import CONSTRAINTS_FILE, INTENT_FILE, SPEC_FILE, Project
from thoughtforge.core.project_log import log_event
from thoughtforge.core.staging import commit_own
from thoughtforge.core.state import (
    ChatMessage,
    Status,
    append_chat,
    clear_chat,
    mark_read,
    read_chat,
)
from thoughtforge.core.transition import transition
from thoughtforge.errors import AgentFailure, PhaseHalt, TransitionError, UnusableReply
from thoughtforge.models import HaltReason, Phase
from thoughtforge.phases import revision
from thoughtforge.phases.chat import unread_in
from thoughtforge.phases.deliverable.outside_text import unwrap
from thoughtforge.phases.deliverable.reading import read_document
from thoughtforge.phases.engine import PhaseEngine
from thoughtforge.phases.plugin_contract import DiscoveryHook
from thoughtforge.phases.reasking import reask
from thoughtforge.phases.spec_documents import (
    DISCOVERY_SECTION,
    constraints_document,
    spec_document,
)
from thoughtforge.phases.spec_proposal import (
    ALL_SECTIONS,
    SpecProposal,
    has_criteria_section,
    is_proposal,
    parse_proposal,
    refusal,
    remaining_items,
    with_accepted_unresolved,
)
from thoughtforge.prompting import (
    SectionedText,
    estimate_tokens,
    fit_conversation,
    heading_key,
    with_known_headings,
)

RETRY_NOTICE = "AI did not generate acceptance criteria. Retrying."
_STEP = "spec-building"
SPEC_PHASE = frozenset({Phase.SPEC_BUILDING})
_NO_DISCOVERY = "The dependencies have no qualification scorecards."
_NO_CRITERIA = "it had no `## Acceptance Criteria` section"
_UNREADABLE = "The agent's proposal could not be used"
_MAX_WHY = 500
_AGAIN = (
    "Answer again with the complete proposal, including acceptance criteria derived from the "
    "confirmed intent and the decisions above."
)


class SpecIncomplete(PhaseHalt):
    """The agent twice proposed a spec without an Acceptance Criteria section, or one that could
    not be read (glued to its retry, cut off: `read_document`): halts `spec_incomplete`, for the
    person to give the criteria."""

    def __init__(self, why: str) -> None:
        super().__init__(
            HaltReason.SPEC_INCOMPLETE,
            f"{why} Please give the acceptance criteria in the chat, then resume.",
        )


class ConfirmOutcome(BaseModel):
    accepted: bool
    remaining: list[str]


def propose(project: Project, config: Config) -> SpecProposal:
    """The complete proposal, asked for once more if it comes without acceptance criteria."""
    status = _require_spec_building(project)
    intent = _read_intent(project)
    history = read_chat(project.dir)
    engine = PhaseEngine.conversing(project, config)
    prompt = _spec_prompt(engine, intent)

    def retry_notice(attempt: int, why: UnusableReply) -> None:
        if attempt == 1:
            unread = str(why) != _NO_CRITERIA
            _say(project, "system", f"{_UNREADABLE} ({why}). Retrying." if unread else RETRY_NOTICE)

    def use(answer: str) -> str:
        read = read_document(answer, sections=ALL_SECTIONS).usable(answer)
        if read.stripped:
            log_event(project.dir, "outside_text_stripped", step=_STEP, what=list(read.stripped))
        return usable_proposal(read.document)

    try:
        answer = engine.ask_until_usable(
            engine.agent,
            engine.call(_STEP, sections=ALL_SECTIONS),
            lambda refused: prompt if refused is None else reask(prompt, refused, _AGAIN),
            use,
            attempts=2,
            on_unusable=retry_notice,
        )
    except UnusableReply as exc:
        if str(exc) != _NO_CRITERIA:
            raise SpecIncomplete(f"The agent's spec proposal was unusable twice: {exc}.") from None
        _say(project, "ai", exc.reply)
        raise SpecIncomplete(
            "The agent twice proposed a spec without an Acceptance Criteria section."
        ) from None
    answer = _without_discovery(answer)
    discovery = _discover(engine, answer)
    if discovery is not None:
        answer = f"{answer}\n\n## {DISCOVERY_SECTION}\n\n{discovery}"
    number = 1 + sum(
        1 for m in history if m.role == "ai" and m.phase is Phase.SPEC_BUILDING and not m.edited
    )
    mark_read(project.dir, unread_in(history, SPEC_PHASE), f"spec proposal {number}")
    _say(project, "ai", answer)
    proposal = parse_proposal(answer, intent)
    name = status.project_name or project.id
    revision.show_changes(
        project,
        spec_document(name, proposal, discovery),
        constraints_document(config, name, status, SectionedText.parse(intent), proposal),
    )
    return proposal


def usable_proposal(answer: str) -> str:
    """The check every proposal passes, the agent's (read first as every agent's document is,
    `read_document`) and one the person edited: an `## Acceptance Criteria` section (a fence
    around the whole is dropped, headings normalised)."""
    answer = with_known_headings(unwrap(answer), ALL_SECTIONS)
    if not has_criteria_section(answer):
        raise UnusableReply(_NO_CRITERIA, answer)
    return answer


def latest_proposal(project: Project) -> SpecProposal | None:
    """The last proposal in the Phase 2 chat."""
    for message in reversed(read_chat(project.dir)):
        is_ai = message.role == "ai" and message.phase is Phase.SPEC_BUILDING
        if is_ai and is_proposal(message.content):
            return parse_proposal(message.content, _read_intent(project))
    return None


def confirm_spec(
    project: Project, config: Config, *, accept_unresolved: bool = False
) -> ConfirmOutcome:
    """Lock `spec.md` and `constraints.md` and start Phase 3, unless something is still open.

    With `accept_unresolved` the person accepts the open items as they are: they are written into
    the spec's Resolved Unknowns as unresolved, so the build knows they were never decided (an
    item nothing in the chat can clear is not a dead end). Acceptance criteria stay required.

    A file-system error writing the documents propagates: there is no retry. The chat is cleared
    after the transition, as in Phase 1, so a crash in between cannot lose the proposal.
    """
    status = _require_spec_building(project)
    proposal = latest_proposal(project)
    accepted = proposal.unresolved if proposal is not None and accept_unresolved else []
    remaining = [item for item in remaining_items(proposal) if item not in accepted]
    if proposal is None or remaining:
        _say(project, "ai", refusal(proposal))
        return ConfirmOutcome(accepted=False, remaining=remaining)
    if accepted:
        _say(project, "system", f"Accepted as unresolved: {'; '.join(accepted)}.")
        proposal = with_accepted_unresolved(proposal, accepted)
    intent = SectionedText.parse(_read_intent(project))
    name = status.project_name or project.id
    discovery = None
    engine = PhaseEngine.conversing(project, config)
    if _discovery_hook(engine) is not None:
        shown = proposal.section(DISCOVERY_SECTION)
        discovery = shown or _discover(engine, proposal.text)
    spec = spec_document(name, proposal, discovery)
    constraints = constraints_document(config, name, status, intent, proposal)
    write_text_atomic(project.dir / SPEC_FILE, revision.keep_superseded(project, SPEC_FILE, spec))
    write_text_atomic(
        project.dir / CONSTRAINTS_FILE,
        revision.keep_superseded(project, CONSTRAINTS_FILE, constraints),
    )
    commit_own(project.dir, "Lock spec.md and constraints.md")
    transition(project, Phase.BUILDING)
    clear_chat(project.dir)
    return ConfirmOutcome(accepted=True, remaining=[])


# --- the conversation ------------------------------------------------------------------------


def _spec_prompt(engine: PhaseEngine, intent: str) -> str:
    """The spec prompt cut to the agent's window: the intent stays, the oldest turns go. What
    Deliverable Structure holds is the deliverable type's own prompt, `spec-building-<type>`."""
    project, prompts = engine.project, engine.prompts
    guidance = prompts.render(f"{_STEP}-{engine.deliverable_type}").strip()

    def render(conversation: str) -> str:
        return prompts.render(
            _STEP, intent=intent, conversation=conversation, structure_guidance=guidance
        )

    overhead = estimate_tokens(render(""))
    room = engine.config.agent(engine.agent).prompt_budget_tokens - overhead
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
    return render(conversation.text or "(none yet)")


def _say(project: Project, role: Literal["ai", "system"], text: str) -> None:
    append_chat(project.dir, ChatMessage(role=role, content=text, phase=Phase.SPEC_BUILDING))


def _read_intent(project: Project) -> str:
    return read_own_text(project.dir / INTENT_FILE)


# --- the discovery hook ----------------------------------------------------------------------


def _discovery_hook(engine: PhaseEngine) -> DiscoveryHook | None:
    hook = engine.plugin.discovery
    return hook if hook is not None and hook.enabled(engine.config) else None


def _discover(engine: PhaseEngine, proposal: str) -> str | None:
    """The discovery section body for `proposal`; None when no hook applies."""
    project = engine.project
    hook = _discovery_hook(engine)
    if hook is None:
        return None
    call = engine.call(hook.PROMPT, schema=hook.SCHEMA)
    try:
        return hook.discover(
            proposal, engine.asking(engine.agent, call), engine.prompts, engine.keeper(call.step)
        )
    except AgentFailure as exc:
        why = str(exc)
    except UnusableReply as exc:
        why = f"the agent twice gave no usable answer: {exc}"
    why = shorten(why, _MAX_WHY, placeholder=" ...")  # one line, so it cannot start a section
    log_event(project.dir, "discovery_failed", level="warning", why=why)
    note = f"Open Source Discovery could not run ({why}). {_NO_DISCOVERY}"
    _say(project, "system", note)
    return note


def _without_discovery(answer: str) -> str:
    """The agent's answer without an Open Source Discovery section: only the hook writes one."""
    document = SectionedText.parse(answer)
    if document.get(DISCOVERY_SECTION) is None:
        return answer
    key = heading_key(DISCOVERY_SECTION)
    kept = [s for s in document.sections if heading_key(s.heading) != key]
    return document.model_copy(update={"sections": kept}).render().strip()


def _require_spec_building(project: Project) -> Status:
    status = project.status()
    if status.phase is not Phase.SPEC_BUILDING:
        raise TransitionError(f"project {project.id} is in '{status.phase}', not 'spec_building'")
    return status
