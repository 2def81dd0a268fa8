"""What the interactive phase flows share: chat notices, the AI's last word, agent-failure halts."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from thoughtforge.errors import AgentFailure
from thoughtforge.models import HaltReason, Phase
from thoughtforge.project import Project
from thoughtforge.state import ChatMessage, append_chat, read_chat
from thoughtforge.transition import transition


def latest_ai_message(project: Project) -> str:
    for message in reversed(read_chat(project.dir)):
        if message.role in ("ai", "system"):
            return message.content
    return ""


def notice(project: Project, text: str) -> None:
    phase = project.status().phase
    append_chat(project.dir, ChatMessage(role="system", content=text, phase=phase))


@contextmanager
def halt_on_failure(project: Project) -> Iterator[None]:
    """An agent that failed twice, or a document that cannot be written, halts the project;
    the chat resumes from the last recorded message."""
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
