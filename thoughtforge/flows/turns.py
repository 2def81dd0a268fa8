"""What the phase flows share: taking the human's turn (Phases 1–2), and halting the project when
an agent or a file fails. The chat resumes from the last recorded message, so a halted
conversation loses nothing."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from textwrap import shorten
from typing import TypeVar

from thoughtforge.core.hooks import notify
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import log_event
from thoughtforge.core.state import (
    STATUS_FILE,
    ChatMessage,
    check_state_files,
    read_chat,
    read_thread,
)
from thoughtforge.core.transition import transition
from thoughtforge.core.waiting import clear_wait, current_wait
from thoughtforge.errors import PhaseHalt, StateFileError
from thoughtforge.flows.human_input import ChatTurn, HumanStep, wait_for_human
from thoughtforge.models import HaltReason, Phase
from thoughtforge.phases import add_human_message, latest_ai_message, notice
from thoughtforge.phases.chat import notice_once, sent_while_working
from thoughtforge.phases.failure_halts import HALTING_FAILURES, halt_for

TurnT = TypeVar("TurnT", bound=ChatTurn)


def take_turn(project: Project, step: HumanStep[TurnT], opening: str = "") -> TurnT | None:
    """The human's turn, its message stored before anything acts on it; None when the turn said
    nothing (an empty `send`), which is answered in the chat so the next wait is a new one.

    `opening` is shown when the AI has said nothing yet. A message stored since the wait began
    (by `thoughtforge say`, or by this turn before a crash) is not stored again.

    A message the person sent while the AI worked (the step then in flight never read it) is
    answered at once, as a `send`, instead of waiting: the next distillation or proposal reads
    it. One this step cannot use (said in Phase 1 while the intent was being confirmed) is named
    in the chat, with how to have it taken into account.
    """
    late = _sent_while_working(project, step)
    if late:
        return step.form(action="send")
    answer = wait_for_human(project, step, latest_ai_message(project) or opening)
    turn = answer.value
    said_since = [
        m.content for m in read_chat(project.dir)[answer.wait.chat_length :] if m.role == "human"
    ]
    if turn.message.strip() and turn.message not in said_since:
        add_human_message(project, turn.message)
        said_since.append(turn.message)
    clear_wait(project.dir)
    if turn.action == "send" and not said_since:
        notice(project, f"Nothing to send: write a message, or choose {step.instead}.")
        return None
    return turn


def _sent_while_working(project: Project, step: HumanStep[TurnT]) -> list[ChatMessage]:
    """The late messages `step` answers; none while a wait is recorded (a re-entered run comes
    back for the answer to that wait, which may be a decision, not a message)."""
    if not step.answers_late or current_wait(project.dir) is not None:
        return []
    late = sent_while_working(read_thread(project.dir))
    for message in late:
        if message.phase not in step.answers_late:
            quoted = shorten(message.content, 80, placeholder="…")
            notice_once(
                project,
                f"Your message “{quoted}” arrived as the step before this one was ending, so no "
                f"step read it. Send it again here to have it taken into account.",
            )
    return [m for m in late if m.phase in step.answers_late]


@contextmanager
def halt_on_failure(project: Project) -> Iterator[None]:
    """A budget the next call could pass, an agent that failed, an answer unusable twice, a
    document that cannot be written (a full disk, a link where it belongs) or a git repository
    an agent reconfigured halts the project, each as it halts in every phase (`halt_for`)."""
    try:
        yield
    except HALTING_FAILURES as failure:
        _halt(project, halt_for(failure))


def state_files_readable(project: Project) -> bool:
    """Checked when a run starts: a corrupt chat or polish state halts the project (naming the
    file) before any work, instead of being found after iterations were added.

    A corrupt `status.json` cannot record a halt: the person is notified, and its error
    propagates, naming the file.
    """
    try:
        check_state_files(project.dir)
    except StateFileError as exc:
        message = f"{exc}. Restore it (it is in the project's git history), then resume."
        print(message)
        if exc.path.name == STATUS_FILE:
            notify(project, "error", f"Project '{project.id}' — {message}")
            raise
        if project.status().phase is not Phase.HALTED:
            transition(
                project, Phase.HALTED, halt_reason=HaltReason.FILE_SYSTEM_ERROR, summary=message
            )
        return False
    return True


def _halt(project: Project, halt: PhaseHalt) -> None:
    """The chat is told when it can be written (a full disk may forbid it); the halt is made."""
    message = str(halt)
    try:
        notice(project, message, reserved=True)
    except OSError as exc:
        log_event(project.dir, "not_in_chat", level="warning", text=message, error=str(exc))
    print(message)
    if project.status().phase is not Phase.HALTED:
        transition(project, Phase.HALTED, halt_reason=halt.halt_reason, summary=message)
