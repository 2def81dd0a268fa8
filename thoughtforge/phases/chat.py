"""The project's chat as the phases use it: the human's words, notices, the AI's last word.

`chat_history.json` is the memory of the interactive phases, so the human's message is stored
before anything acts on it, and a notice a re-run would repeat is said once. In Phases 3–4 a
message is guidance: the next build step or polish iteration puts it before its agent and marks it
read (`ChatMessage.read_by`), and `when_read` is what the person is told when they send it.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from thoughtforge.core.project import Project
from thoughtforge.core.state import (
    ChatMessage,
    Status,
    append_chat,
    read_chat,
    read_status,
    read_thread,
)
from thoughtforge.core.waiting import current_wait
from thoughtforge.errors import ThoughtForgeError, TransitionError
from thoughtforge.models import CONVERSATION_PHASES, HaltReason, Phase

PHASE_LABELS: dict[Phase, str] = {
    Phase.BRAIN_DUMP: "Phase 1 · brain dump",
    Phase.DISTILLING: "Phase 1 · distilling",
    Phase.HUMAN_REVIEW: "Phase 1 · review",
    Phase.SPEC_BUILDING: "Phase 2 · spec",
    Phase.BUILDING: "Phase 3 · build",
    Phase.POLISHING: "Phase 4 · polish",
    Phase.DONE: "done",
    Phase.HALTED: "halted",
}
"""A message's phase as the thread labels it (on the page and in `thoughtforge chat`)."""
NO_GUIDANCE = "None."
GUIDED_PHASES = frozenset({Phase.BUILDING, Phase.POLISHING})
"""Where a message is guidance for the next step (Phases 1–2 converse instead)."""
REPLY_POLL_SECONDS = 0.25


def add_human_message(project: Project, text: str) -> None:
    """Store the human's words first, exactly as typed, so nothing said is lost to a crash.

    A message sent while the project is halted belongs to the phase it halted in, so it reaches
    the agent once the project resumes. An empty message, or one to a project that is finished
    or terminated (no agent will ever read it), is refused.
    """
    if not text.strip():
        raise ThoughtForgeError("the message is empty: write what you want to say")
    status = project.status()
    if status.phase is Phase.DONE or status.halt_reason is HaltReason.HUMAN_TERMINATED:
        state = "finished" if status.phase is Phase.DONE else "terminated"
        raise TransitionError(f"project {project.id} is {state}: no agent will read a message")
    phase = (
        status.halted_from if status.phase is Phase.HALTED and status.halted_from else status.phase
    )
    append_chat(project.dir, ChatMessage(role="human", content=text, phase=phase))


def notice(
    project: Project, text: str, phase: Phase | None = None, *, reserved: bool = False
) -> None:
    """A system message, in `phase` or else the project's current one; `reserved` for the one
    telling a halt (written in the room a full disk keeps for it, `core.space_reserve`)."""
    phase = phase or project.status().phase
    append_chat(
        project.dir, ChatMessage(role="system", content=text, phase=phase), reserved=reserved
    )


def notice_once(project: Project, text: str, phase: Phase | None = None) -> None:
    """For notices a re-run would repeat (a bad resource, a template fallback): said once."""
    if not any(m.role == "system" and m.content == text for m in read_chat(project.dir)):
        notice(project, text, phase)


def latest_ai_message(project: Project) -> str:
    """What the human last heard: the newest AI or system message, or empty."""
    for message in reversed(read_chat(project.dir)):
        if message.role in ("ai", "system"):
            return message.content
    return ""


def unread_words(history: list[ChatMessage]) -> list[ChatMessage]:
    """The person's messages of Phases 3–4 that no step has put before an agent yet."""
    return [
        m for m in history if m.role == "human" and m.read_by is None and m.phase in GUIDED_PHASES
    ]


def sent_while_working(thread: list[ChatMessage]) -> list[ChatMessage]:
    """The person's messages of Phases 1–2 that arrived while the AI worked, so the step then in
    flight did not read them: unread, after a message some step did read. (Every distillation
    and spec proposal marks what it read; a thread from before they did has no read message in
    these phases, and is left as it was.)"""
    found: list[ChatMessage] = []
    read_before = False
    for message in thread:
        if message.role != "human" or message.phase not in CONVERSATION_PHASES:
            continue
        if message.read_by is not None:
            read_before = True
        elif read_before:
            found.append(message)
    return found


def unread_in(history: list[ChatMessage], phases: frozenset[Phase]) -> list[ChatMessage]:
    """The person's messages of `phases` no step has marked read: what a step about to ask its
    agent reads (and then marks, naming itself)."""
    return [m for m in history if m.role == "human" and m.read_by is None and m.phase in phases]


def guidance_text(messages: list[ChatMessage]) -> str:
    """The person's words, oldest first, as a prompt's "Guidance from the person" holds them."""
    return "\n\n".join(m.content for m in messages) or NO_GUIDANCE


def when_read(status: Status) -> str:
    """When the AI reads a message stored now that no run waits for (the CLI and the page say
    it): in Phases 3–4 at the next build step or polish iteration, else at the AI's next call."""
    halted = status.phase is Phase.HALTED
    phase = status.halted_from if halted and status.halted_from else status.phase
    then = " once the project resumes" if halted else ""
    if phase is Phase.POLISHING:
        return f"it will be read at the next polish iteration{then}"
    if phase is Phase.BUILDING:
        return f"it will be read at the next build step{then}"
    return f"the AI reads it at its next call{then}"


def await_reply(
    project: Project,
    since: int,
    answered_key: str | None,
    timeout: float,
    on_message: Callable[[int, ChatMessage], None],
) -> bool:
    """Hand each AI and system message after thread message `since` to `on_message` as it comes,
    with its index in the thread, until the run asks the person again (a wait other than
    `answered_key`), or the project is done or halted: True then; False when `timeout` seconds
    pass first. The doors wait through `actions.replying`: the CLI's `--wait` prints the
    messages, an MCP tool returns them."""
    deadline = time.monotonic() + timeout
    seen = since
    while True:
        seen = _hand_on(project, seen, on_message)
        waiting = current_wait(project.dir)
        asked_again = waiting is not None and waiting.key != answered_key
        if asked_again or read_status(project.dir).phase in (Phase.DONE, Phase.HALTED):
            _hand_on(project, seen, on_message)
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(REPLY_POLL_SECONDS)


def _hand_on(project: Project, seen: int, on_message: Callable[[int, ChatMessage], None]) -> int:
    messages = read_thread(project.dir)
    for index in range(seen, len(messages)):
        if messages[index].role in ("ai", "system"):
            on_message(index, messages[index])
    return len(messages)


def when_answered(status: Status) -> str:
    """When a message sent while the AI works is taken up: in Phases 1–2 the run answers it as
    soon as the step in flight ends (`flows.turns.take_turn`); in Phases 3–4, as `when_read`."""
    if status.phase in GUIDED_PHASES:
        return when_read(status)
    return "the AI takes it into account as soon as its current step ends"
