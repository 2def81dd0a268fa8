"""Notification channels. Every phase transition produces one `Notification`."""

from __future__ import annotations

from typing import Literal, Protocol

from pydantic import BaseModel

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


class NullNotifier:
    """The default until a channel is configured."""

    def send(self, notification: Notification) -> None:
        return None
