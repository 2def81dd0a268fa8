"""What `transition()` tells after every phase change: a notifier, a board, and listeners.

They are defined here, beside `transition()`, so the core depends on no adapter: the notification
and Kanban adapters implement these protocols, and each entry point (a CLI command, a flow)
installs the ones its config asks for; the null versions stand in until then. Listeners are
process-wide too: the flows add one that emits a Prefect event for every transition.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol

from pydantic import BaseModel

from thoughtforge.core.project import Project
from thoughtforge.core.project_log import log_event
from thoughtforge.core.state import Status
from thoughtforge.errors import StateFileError

EventType = Literal[
    "convergence_success", "guard_triggered", "human_needed", "milestone_complete", "error"
]


BOARD_CARD_FILE = ".board-card.json"
"""Where a board adapter keeps the id of the project's card (private: never committed)."""


class Notification(BaseModel):
    project_id: str
    project_name: str | None
    phase: str
    event_type: EventType
    summary: str


class Notifier(Protocol):
    def send(self, project: Project, notification: Notification) -> None: ...


class Board(Protocol):
    def sync(self, project: Project, status: Status) -> None: ...


class NullNotifier:
    """The default until a channel is configured."""

    def send(self, project: Project, notification: Notification) -> None:
        return None


class NullBoard:
    """The default while `vibekanban.enabled` is false."""

    def sync(self, project: Project, status: Status) -> None:
        return None


@dataclass(frozen=True)
class TransitionHooks:
    notifier: Notifier = field(default_factory=NullNotifier)
    board: Board = field(default_factory=NullBoard)


_installed = TransitionHooks()


def install_hooks(hooks: TransitionHooks) -> TransitionHooks:
    """Use `hooks` for every transition in this process that names none; returns the previous."""
    global _installed
    previous, _installed = _installed, hooks
    return previous


def installed_hooks() -> TransitionHooks:
    """The hooks a transition uses when it is given none."""
    return _installed


TransitionListener = Callable[[Notification, Status], None]
_listeners: list[TransitionListener] = []


def add_transition_listener(listener: TransitionListener) -> None:
    """Call `listener` after every transition in this process (once, however often added)."""
    if listener not in _listeners:
        _listeners.append(listener)


def transition_listeners() -> list[TransitionListener]:
    """The listeners added so far."""
    return list(_listeners)


def best_effort(project: Project, hook: str, call: Callable[[], None]) -> None:
    """Call a hook; its failure becomes a warning in the project's log and goes no further."""
    try:
        call()
    except Exception as exc:  # noqa: BLE001 - a broken hook must never stop the pipeline
        log_event(project.dir, "hook_failed", level="warning", hook=hook, error=repr(exc))


def show_on_board(project: Project, hooks: TransitionHooks | None = None) -> None:
    """Update the project's card outside a transition: a new project's card appears at once, and
    a polishing card's metrics grow with every iteration."""
    board = (hooks or installed_hooks()).board
    best_effort(project, "board", lambda: board.sync(project, project.status()))


def notify(
    project: Project, event_type: EventType, summary: str, hooks: TransitionHooks | None = None
) -> None:
    """Tell the human of an event that changes no phase (a guard's warning, or a `status.json`
    that cannot be read: then the project is named by its id, its phase as unknown)."""
    try:
        status: Status | None = project.status()
    except StateFileError:
        status = None
    notification = Notification(
        project_id=project.id,
        project_name=status.project_name if status else None,
        phase=status.phase.value if status else "unknown",
        event_type=event_type,
        summary=summary,
    )
    notifier = (hooks or installed_hooks()).notifier
    best_effort(project, "notification", lambda: notifier.send(project, notification))
