"""What the interactive phase flows (Phases 1–2) share: taking the human's turn, and halting the
project when an agent or a file fails. The chat resumes from the last recorded message, so a
halted conversation loses nothing."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from thoughtforge.core import Project, transition
from thoughtforge.errors import AgentFailure
from thoughtforge.flows.human_input import ChatInput, chat_key, wait_for_human
from thoughtforge.models import HaltReason, Phase
from thoughtforge.phases import add_human_message, latest_ai_message, notice


def take_turn(project: Project, automatic: ChatInput | None, opening: str = "") -> ChatInput:
    """The human's turn (or `automatic`, in a batch run), its message stored before anything acts
    on it. `opening` is shown when the AI has said nothing yet."""
    turn = automatic or wait_for_human(
        ChatInput, latest_ai_message(project) or opening, key=chat_key(project)
    )
    if turn.message.strip():
        add_human_message(project, turn.message)
    return turn


@contextmanager
def halt_on_failure(project: Project) -> Iterator[None]:
    """An agent that failed twice, or a document that cannot be written, halts the project."""
    try:
        yield
    except AgentFailure as exc:
        _halt(project, HaltReason.AGENT_FAILURE, f"The agent failed twice: {exc}.")
    except OSError as exc:
        _halt(project, HaltReason.FILE_SYSTEM_ERROR, f"A project file could not be written: {exc}.")


def _halt(project: Project, reason: HaltReason, message: str) -> None:
    notice(project, f"{message} Fix the cause, then resume.")
    if project.status().phase is not Phase.HALTED:
        transition(project, Phase.HALTED, halt_reason=reason, summary=message)
