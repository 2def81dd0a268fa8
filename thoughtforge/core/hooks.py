"""The two hooks `transition()` calls after every phase change: a notifier and a board.

They are defined here, beside `transition()`, so the core depends on no adapter: the notification
and Kanban adapters implement these protocols, and the null versions are the defaults until a
channel or a board is configured.
"""

from __future__ import annotations

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
