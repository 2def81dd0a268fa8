"""What an agent call tells the person beyond its reply, in the project's chat and log: the
budget nearly spent (`call_budget`), and what happened inside a CLI during the call, read from
its structured output (`CliKind.inside`): the retries it made and why, the tool calls and
commands it refused. A call made outside a project (the doctor's probe) tells nothing.
"""

from __future__ import annotations

from pathlib import Path

from thoughtforge.core.project_log import log_event
from thoughtforge.core.state import STATUS_FILE, ChatMessage, append_chat
from thoughtforge.errors import StateFileError
from thoughtforge.models import Phase

_PHASES = frozenset(phase.value for phase in Phase)


def in_a_project(project_dir: Path) -> bool:
    return (project_dir / STATUS_FILE).is_file()


def tell_chat(project_dir: Path, phase: str, text: str) -> None:
    """A system line in the chat of the call's phase; in the log when the chat cannot take it."""
    if not in_a_project(project_dir) or phase not in _PHASES:
        return
    try:
        append_chat(project_dir, ChatMessage(role="system", content=text, phase=Phase(phase)))
    except (StateFileError, OSError) as exc:
        log_event(project_dir, "not_in_chat", level="warning", text=text, error=str(exc))


def tell_inside(project_dir: Path, phase: str, agent: str, step: str, notes: list[str]) -> None:
    """What happened inside the agent's CLI during one attempt, in the log and the chat."""
    if not notes or not in_a_project(project_dir):
        return
    for note in notes:
        log_event(project_dir, "agent_inside", level="warning", agent=agent, step=step, said=note)
    tell_chat(project_dir, phase, f"Agent '{agent}' at step '{step}': {'; '.join(notes)}.")
