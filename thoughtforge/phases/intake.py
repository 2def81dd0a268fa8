"""Phase 1: distil the brain dump into an intent the human corrects, then lock it as `intent.md`.

The project moves brain_dump → distilling → human_review, back to distilling for every correction,
and on to spec_building when the human confirms. The chat file is the whole memory of the phase, so
a flow killed at any point resumes from it.

"Realign from here" is recorded in the chat as the human message it is, and nothing is ever removed
from `chat_history.json`: the exclusion is recomputed from the chat each time a prompt is built.
A realign command drops, from the working context, every human and AI turn after the most recent
*substantive* human message before it (one of at least `SUBSTANTIVE_WORDS` words that is not itself
a realign command), together with the command itself. A command is any human message that reads
"realign from here", ignoring case and punctuation.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from thoughtforge.adapters.agents import AgentCall, invoke_agent
from thoughtforge.atomic_write import write_text_atomic
from thoughtforge.config import Config
from thoughtforge.context_window import estimate_tokens, truncate_text
from thoughtforge.conversation import fit_conversation
from thoughtforge.errors import AgentFailure, StateFileError, TransitionError
from thoughtforge.git_repo import commit_all
from thoughtforge.markdown_sections import SectionedText, list_items, strip_outer_fence
from thoughtforge.models import DeliverableType, Phase
from thoughtforge.project import INTENT_FILE, Project
from thoughtforge.project_log import log_event
from thoughtforge.prompts import PromptLibrary
from thoughtforge.resources import ResourceBundle, read_resources
from thoughtforge.state import (
    CHAT_HISTORY_FILE,
    ChatMessage,
    Status,
    append_chat,
    read_chat,
    write_chat,
)
from thoughtforge.transition import transition

PHASE_ONE = frozenset({Phase.BRAIN_DUMP, Phase.DISTILLING, Phase.HUMAN_REVIEW})
INTENT_SECTIONS = (
    "Deliverable Type",
    "Objective",
    "Assumptions",
    "Constraints",
    "Unknowns",
    "Open Questions",
)
MAX_OPEN_QUESTIONS = 5
REALIGN_COMMAND = "realign from here"
SUBSTANTIVE_WORDS = 5
MAX_NAME_CHARS = 60
RESOURCE_SHARE = 0.5
"""Resources may fill at most this share of the agent's context window; the chat gets the rest."""

_STEP = "brain-dump-intake"
_LIST_MARKER = re.compile(r"^(?:[-*+]|\d+[.)])\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


class IntakeReply(BaseModel):
    kind: Literal["need_more", "distillation"]
    message: str


class IntentConfirmed(BaseModel):
    project_name: str
    deliverable_type: DeliverableType
    intent_path: Path


class DistillationMalformed(AgentFailure):
    """Two answers without the six sections: the flows halt on it as on any agent failure."""


def add_human_message(project: Project, text: str) -> None:
    """Store the human's words first, exactly as typed, so nothing said is lost to a crash.

    A message sent while the project is halted belongs to the phase it halted in, so it reaches
    the agent once the project resumes.
    """
    status = project.status()
    phase = (
        status.halted_from if status.phase is Phase.HALTED and status.halted_from else status.phase
    )
    append_chat(project.dir, ChatMessage(role="human", content=text, phase=phase))


def distill(project: Project, config: Config) -> IntakeReply:
    """Distil everything said so far (and the resources) and present it for review."""
    status = _require_phase_one(project)
    turns = _working_turns(read_chat(project.dir))
    said = len(_human_text(turns))
    if said < config.brain_dump.min_chars:
        return _ask_for_more(project, config, status.phase, said)
    if status.phase is not Phase.DISTILLING:
        transition(project, Phase.DISTILLING)
    resources = read_resources(project, config, status.agent)
    for notice in resources.notices:
        _notice_once(project, notice)
    prompt = _intake_prompt(project, config, status.agent, turns, resources)
    distillation = _ask_for_distillation(project, config, status.agent, prompt)
    append_chat(project.dir, ChatMessage(role="ai", content=distillation, phase=Phase.DISTILLING))
    transition(project, Phase.HUMAN_REVIEW)
    return IntakeReply(kind="distillation", message=distillation)


def realign(project: Project, config: Config) -> IntakeReply:
    """Drop the turns after the last substantive correction from the context, and re-distil."""
    _require_phase_one(project)
    spoken = [m for m in read_chat(project.dir) if m.role != "system"]
    if not (spoken and spoken[-1].role == "human" and _is_realign(spoken[-1].content)):
        add_human_message(project, REALIGN_COMMAND)
    log_event(project.dir, "realign")
    return distill(project, config)


def confirm_intent(project: Project, config: Config) -> IntentConfirmed:
    """Lock the latest distillation as `docs/intent.md`, name the project and start Phase 2.

    The chat is cleared after the transition: a crash in between leaves Phase 1 turns that Phase 2
    ignores, where the other order would leave human_review with no distillation to confirm.
    """
    status = project.status()
    if status.phase is not Phase.HUMAN_REVIEW:
        raise TransitionError(
            f"project {project.id} is in '{status.phase}': only a distillation under human "
            "review can be confirmed"
        )
    distillation = _latest_distillation(project)
    document = SectionedText.parse(distillation)
    name = _project_name(document.get("Objective") or "") or project.id
    deliverable_type = _deliverable_type(document.get("Deliverable Type") or "")
    path = project.dir / INTENT_FILE
    write_text_atomic(path, f"# Intent: {name}\n\n{distillation.strip()}\n")
    commit_all(project.dir, "Lock intent.md")
    transition(project, Phase.SPEC_BUILDING, project_name=name, deliverable_type=deliverable_type)
    write_chat(project.dir, [])
    return IntentConfirmed(project_name=name, deliverable_type=deliverable_type, intent_path=path)


# --- the conversation ------------------------------------------------------------------------


def _working_turns(history: list[ChatMessage]) -> list[ChatMessage]:
    """Phase 1's human and AI turns, oldest first, with every realign command applied."""
    kept: list[ChatMessage] = []
    for message in history:
        if message.phase not in PHASE_ONE or message.role == "system":
            continue
        if message.role == "human" and _is_realign(message.content):
            anchor = next((i for i in reversed(range(len(kept))) if _is_substantive(kept[i])), None)
            if anchor is not None:
                del kept[anchor + 1 :]
        else:
            kept.append(message)
    return kept


def _is_realign(text: str) -> bool:
    return " ".join(re.findall(r"[a-z]+", text.lower())) == REALIGN_COMMAND


def _is_substantive(message: ChatMessage) -> bool:
    return message.role == "human" and len(message.content.split()) >= SUBSTANTIVE_WORDS


def _human_text(turns: list[ChatMessage]) -> str:
    return "\n\n".join(m.content.strip() for m in turns if m.role == "human").strip()


def _ask_for_more(project: Project, config: Config, phase: Phase, length: int) -> IntakeReply:
    """Too little to distil: ask for more, and stay (or go back) in brain_dump."""
    if phase is Phase.DISTILLING:
        transition(project, Phase.BRAIN_DUMP, summary="Brain dump too short to distil.")
        phase = Phase.BRAIN_DUMP
    message = (
        f"There is not enough to distil yet ({length} characters; at least "
        f"{config.brain_dump.min_chars} are needed). Tell me more: what should exist at the end, "
        "who it is for, and the limits you already know (dates, budget, tools, people)."
    )
    append_chat(project.dir, ChatMessage(role="ai", content=message, phase=phase))
    return IntakeReply(kind="need_more", message=message)


def _notice_once(project: Project, text: str) -> None:
    """Resources are re-read for every correction; the human hears about a bad file once."""
    if not any(m.role == "system" and m.content == text for m in read_chat(project.dir)):
        _notice(project, text)


def _notice_truncation(project: Project, what: str, detail: str) -> None:
    log_event(project.dir, "context_truncated", level="warning", what=what, detail=detail)
    _notice(project, f"The {what} did not fit the agent's context window: {detail}.")


def _notice(project: Project, text: str) -> None:
    append_chat(project.dir, ChatMessage(role="system", content=text, phase=Phase.DISTILLING))


# --- the agent -------------------------------------------------------------------------------


def _intake_prompt(
    project: Project,
    config: Config,
    agent: str,
    turns: list[ChatMessage],
    resources: ResourceBundle,
) -> str:
    """The intake prompt cut to the agent's window: the brain dump stays, the oldest turns go."""
    prompts = PromptLibrary(config.prompts.directory)
    window = config.agent(agent).context_window_tokens
    overhead = estimate_tokens(prompts.render(_STEP, conversation="", resources=""))
    fitted = truncate_text(resources.as_prompt_text(), int(window * RESOURCE_SHARE))
    if fitted.truncated:
        _notice_truncation(project, "resources", "their text was cut short")
    room = window - overhead - estimate_tokens(fitted.text)
    anchored = next((i + 1 for i, m in enumerate(turns) if m.role == "human"), 0)
    conversation = fit_conversation(turns, room, anchored)
    if conversation.dropped:
        _notice_truncation(
            project,
            "conversation",
            f"{conversation.dropped} older message(s) after the brain dump were left out",
        )
    return prompts.render(_STEP, conversation=conversation.text, resources=fitted.text)


def _ask_for_distillation(project: Project, config: Config, agent: str, prompt: str) -> str:
    """A distillation with all six sections; the agent is asked once more if some are missing."""
    call = AgentCall(step=_STEP, project_dir=project.dir, phase=Phase.DISTILLING.value)
    problems: list[str] = []
    asked = prompt
    for attempt in (1, 2):
        answer = strip_outer_fence(invoke_agent(config, agent, asked, call))
        document = SectionedText.parse(answer)
        missing = document.missing(INTENT_SECTIONS)
        if not missing:
            return _cap_open_questions(project, answer, document)
        problems.append(f"missing section(s): {', '.join(missing)}")
        log_event(
            project.dir, "distillation_malformed", level="warning", attempt=attempt, missing=missing
        )
        asked = (
            f"{prompt}\n\nYour previous answer could not be used: it has no "
            f"{', '.join(f'## {name}' for name in missing)} section. Answer again with exactly "
            f"the six sections: {', '.join(f'## {name}' for name in INTENT_SECTIONS)}."
        )
    raise DistillationMalformed(agent, _STEP, problems)


def _cap_open_questions(project: Project, answer: str, document: SectionedText) -> str:
    """The prompt allows 5 open questions, the most blocking first; any more are dropped."""
    questions = list_items(document.get("Open Questions") or "")
    if len(questions) <= MAX_OPEN_QUESTIONS:
        return answer
    log_event(
        project.dir,
        "open_questions_capped",
        level="warning",
        asked=len(questions),
        kept=MAX_OPEN_QUESTIONS,
    )
    kept = "\n".join(f"- {q}" for q in questions[:MAX_OPEN_QUESTIONS])
    return document.with_body("Open Questions", kept).render().strip()


# --- confirmation ----------------------------------------------------------------------------


def _latest_distillation(project: Project) -> str:
    for message in reversed(read_chat(project.dir)):
        is_distillation = not SectionedText.parse(message.content).missing(INTENT_SECTIONS)
        if message.role == "ai" and message.phase in PHASE_ONE and is_distillation:
            return message.content
    raise StateFileError(
        project.dir / CHAT_HISTORY_FILE,
        "holds no distillation to confirm (human_review without one)",
    )


def _project_name(objective: str) -> str:
    """The Objective's first sentence, cut at a word to `MAX_NAME_CHARS`."""
    text = _LIST_MARKER.sub("", " ".join(re.sub(r"[*_`#>]", "", objective).split()))
    sentence = _SENTENCE_END.split(text, maxsplit=1)[0].rstrip(".!? ")
    if len(sentence) > MAX_NAME_CHARS:
        cut = sentence[: MAX_NAME_CHARS - 1].rsplit(" ", 1)[0]
        sentence = cut.rstrip(",;:—- ") + "…"
    return sentence[:1].upper() + sentence[1:]


def _deliverable_type(section: str) -> DeliverableType:
    """Code only when the section's first line says code and not plan; anything else is a plan."""
    first_line = next((line for line in section.splitlines() if line.strip()), "").lower()
    words = set(re.findall(r"[a-z]+", first_line))
    return DeliverableType.CODE if "code" in words and "plan" not in words else DeliverableType.PLAN


def _require_phase_one(project: Project) -> Status:
    status = project.status()
    if status.phase not in PHASE_ONE:
        raise TransitionError(f"project {project.id} is in '{status.phase}', not in Phase 1")
    return status
