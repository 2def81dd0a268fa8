"""Phase 1: distil the brain dump into an intent the human corrects (`intent` locks it).

The project moves brain_dump → distilling → human_review, back to distilling for every correction,
and on to spec_building when the human confirms (`intent.confirm_intent`). The chat file is the
whole memory of the phase, so a flow killed at any point resumes from it.

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

from thoughtforge.adapters.agents.image_parts import attached_tokens, sends_images
from thoughtforge.config import Config
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import log_event
from thoughtforge.core.state import ChatMessage, Status, append_chat, mark_read, read_chat
from thoughtforge.core.transition import transition
from thoughtforge.errors import TransitionError, UnusableReply
from thoughtforge.models import PHASE_ONE, Phase
from thoughtforge.phases.chat import add_human_message, notice, notice_once, unread_in
from thoughtforge.phases.deliverable.outside_text import unwrap
from thoughtforge.phases.deliverable.reading import read_document
from thoughtforge.phases.engine import PhaseEngine
from thoughtforge.phases.intent import INTENT_SECTIONS, type_choices
from thoughtforge.phases.plugin_loader import load_plugins
from thoughtforge.phases.reasking import reask
from thoughtforge.phases.resources import ResourceBundle, read_resources
from thoughtforge.prompting import (
    PromptLibrary,
    SectionedText,
    estimate_tokens,
    fit_conversation,
    list_items,
    truncate_text,
    with_known_headings,
)

MAX_OPEN_QUESTIONS = 5
REALIGN_COMMAND = "realign from here"
SUBSTANTIVE_WORDS = 5
RESOURCE_SHARE = 0.5
"""Resources may fill at most this share of the agent's context window; the chat gets the rest."""

_STEP = "brain-dump-intake"


class IntakeReply(BaseModel):
    kind: Literal["need_more", "distillation"]
    message: str


class DistillationMalformed(UnusableReply):
    """Two answers without the six sections (or glued, cut off: `read_document`): the flows
    halt with `answer_unusable`."""


def distill(project: Project, config: Config) -> IntakeReply:
    """Distil everything said so far (and the resources) and present it for review."""
    status = _require_phase_one(project)
    history = read_chat(project.dir)
    turns = _working_turns(history)
    said = len(_human_text(turns))
    if said < config.brain_dump.min_chars:
        return _ask_for_more(project, config, status.phase, said)
    if status.phase is not Phase.DISTILLING:
        transition(project, Phase.DISTILLING)
    resources = read_resources(project, config, status.agent)
    for text in resources.notices:
        notice_once(project, text, Phase.DISTILLING)
    prompt = _intake_prompt(project, config, status.agent, turns, resources)
    distillation = _ask_for_distillation(project, config, status.agent, prompt, resources.images)
    number = 1 + sum(1 for m in history if m.role == "ai" and m.phase is Phase.DISTILLING)
    mark_read(project.dir, unread_in(history, PHASE_ONE), f"distillation {number}")
    append_chat(project.dir, ChatMessage(role="ai", content=distillation, phase=Phase.DISTILLING))
    transition(project, Phase.HUMAN_REVIEW)
    return IntakeReply(kind="distillation", message=distillation)


def realign(project: Project, config: Config) -> IntakeReply:
    """Drop the turns after the last substantive correction from the context, and re-distil."""
    _require_phase_one(project)
    spoken = [m for m in read_chat(project.dir) if m.role != "system"]
    if not (spoken and spoken[-1].role == "human" and is_realign_command(spoken[-1].content)):
        add_human_message(project, REALIGN_COMMAND)
    log_event(project.dir, "realign")
    return distill(project, config)


# --- the conversation ------------------------------------------------------------------------


def _working_turns(history: list[ChatMessage]) -> list[ChatMessage]:
    """Phase 1's human and AI turns, oldest first, with every realign command applied."""
    kept: list[ChatMessage] = []
    for message in history:
        if message.phase not in PHASE_ONE or message.role == "system":
            continue
        if message.role == "human" and is_realign_command(message.content):
            anchor = next((i for i in reversed(range(len(kept))) if _is_substantive(kept[i])), None)
            if anchor is not None:
                del kept[anchor + 1 :]
        else:
            kept.append(message)
    return kept


def is_realign_command(text: str) -> bool:
    """Whether a human message is the realign command ("Realign from here!" counts)."""
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


def _notice_truncation(project: Project, what: str, detail: str) -> None:
    log_event(project.dir, "context_truncated", level="warning", what=what, detail=detail)
    notice(
        project,
        f"The {what} did not fit the agent's context window: {detail}.",
        Phase.DISTILLING,
    )


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
    types = type_choices(load_plugins(config))
    spec = config.agent(agent)
    attached = sends_images(spec) and bool(resources.images)
    window = spec.prompt_budget_tokens - attached_tokens(spec, resources.images)
    overhead = estimate_tokens(
        prompts.render(_STEP, conversation="", resources="", deliverable_types=types)
    )
    fitted = truncate_text(resources.as_prompt_text(attached), int(window * RESOURCE_SHARE))
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
    return prompts.render(
        _STEP, conversation=conversation.text, resources=fitted.text, deliverable_types=types
    )


def _ask_for_distillation(
    project: Project, config: Config, agent: str, prompt: str, images: list[Path]
) -> str:
    """A distillation with all six sections; the agent is asked once more if some are missing."""
    engine = PhaseEngine.conversing(project, config)
    again = (
        f"Answer again with exactly the six sections, each under its own level-2 heading: "
        f"{_headings(INTENT_SECTIONS)}."
    )

    def use(answer: str) -> str:
        read = read_document(answer, sections=INTENT_SECTIONS).usable(answer)
        if read.stripped:
            log_event(project.dir, "outside_text_stripped", step=_STEP, what=list(read.stripped))
        text, document = usable_distillation(read.document)
        return _cap_open_questions(project, text, document)

    try:
        return engine.ask_until_usable(
            agent,
            engine.call(_STEP, sections=INTENT_SECTIONS, images=tuple(images)),
            lambda refusal: prompt if refusal is None else reask(prompt, refusal, again),
            use,
            attempts=2,
        )
    except UnusableReply as exc:
        raise DistillationMalformed(str(exc), exc.reply) from None


def usable_distillation(answer: str) -> tuple[str, SectionedText]:
    """The check every distillation passes, the agent's (read first as every agent's document
    is, `read_document`) and one the person edited: the six sections, each under its heading (a
    fence around the whole is dropped, headings normalised)."""
    answer = with_known_headings(unwrap(answer), INTENT_SECTIONS)
    document = SectionedText.parse(answer)
    missing = document.missing(INTENT_SECTIONS)
    if missing:
        raise UnusableReply(f"it has no {_headings(missing)} section")
    return answer, document


def _headings(names: tuple[str, ...] | list[str]) -> str:
    return ", ".join(f"## {name}" for name in names)


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


def _require_phase_one(project: Project) -> Status:
    status = project.status()
    if status.phase not in PHASE_ONE:
        raise TransitionError(f"project {project.id} is in '{status.phase}', not in Phase 1")
    return status
