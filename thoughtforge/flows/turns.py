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
    """An agent that failed twice halts the project; the chat resumes from the last message."""
    try:
        yield
    except AgentFailure as exc:
        notice(project, f"The agent failed twice: {exc}. Resume when it is available again.")
        if project.status().phase is not Phase.HALTED:
            transition(
                project, Phase.HALTED, halt_reason=HaltReason.AGENT_FAILURE, summary=str(exc)
            )
