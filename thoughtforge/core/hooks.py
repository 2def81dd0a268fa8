"""What `transition()` tells after every phase change: a notifier, a board, and listeners.

They are defined here, beside `transition()`, so the core depends on no adapter: the notification
and Kanban adapters implement these protocols, and the null versions are the defaults until a
channel or a board is configured. Listeners are process-wide: the flows add one that emits a
Prefect event for every transition, whoever makes it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, Protocol

from pydantic import BaseModel

from thoughtforge.core.state import Status

EventType = Literal[
    "convergence_success", "guard_triggered", "human_needed", "milestone_complete", "error"
]


class Notification(BaseModel):
    project_id: str
    project_name: str | None
    phase: str
    event_type: EventType
    summary: str


class Notifier(Protocol):
    def send(self, notification: Notification) -> None: ...


class Board(Protocol):
    def sync(self, project_id: str, status: Status) -> None: ...


class NullNotifier:
    """The default until a channel is configured."""

    def send(self, notification: Notification) -> None:
        return None


class NullBoard:
    """The default while `vibekanban.enabled` is false."""

    def sync(self, project_id: str, status: Status) -> None:
        return None


TransitionListener = Callable[[Notification, Status], None]
_listeners: list[TransitionListener] = []


def add_transition_listener(listener: TransitionListener) -> None:
    """Call `listener` after every transition in this process (once, however often added)."""
    if listener not in _listeners:
        _listeners.append(listener)


def transition_listeners() -> list[TransitionListener]:
    """The listeners added so far."""
    return list(_listeners)
