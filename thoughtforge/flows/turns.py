"""What the phase flows share: taking the human's turn (Phases 1–2), and halting the project when
an agent or a file fails. The chat resumes from the last recorded message, so a halted
conversation loses nothing."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from thoughtforge.core import Project, check_state_files, transition
from thoughtforge.errors import AgentFailure, StateFileError
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


def state_files_readable(project: Project) -> bool:
    """Checked when a run starts: a corrupt chat or polish state halts the project (naming the
    file) before any work, instead of being found after iterations were added.

    A corrupt `status.json` cannot record a halt: its error propagates, naming the file.
    """
    try:
        check_state_files(project.dir)
    except StateFileError as exc:
        message = f"{exc}. Restore it (it is in the project's git history), then resume."
        print(message)
        if project.status().phase is not Phase.HALTED:
            transition(
                project, Phase.HALTED, halt_reason=HaltReason.FILE_SYSTEM_ERROR, summary=message
            )
        return False
    return True


def _halt(project: Project, reason: HaltReason, message: str) -> None:
    notice(project, f"{message} Fix the cause, then resume.")
    if project.status().phase is not Phase.HALTED:
        transition(project, Phase.HALTED, halt_reason=reason, summary=message)
