"""Every phase transition as a Prefect event, `thoughtforge.project.<phase>`, with the project as
its resource, so an automation can act on it (the README shows one that notifies on `halted`);
and, as for every entry point, on the board and the notification channels the config names."""

from __future__ import annotations

from pathlib import Path

from prefect.events import emit_event

from thoughtforge.adapters.announce import announce_transitions
from thoughtforge.config import Config, config_path
from thoughtforge.core.hooks import Notification, add_transition_listener
from thoughtforge.core.state import Status

EVENT_PREFIX = "thoughtforge.project"


def announce(config: Config, config_file: str | None) -> None:
    """From now on, in this process: an event, a card update and a notification per transition."""
    add_transition_listener(_emit)
    announce_transitions(config_path(Path(config_file) if config_file else None), config)


def _emit(notification: Notification, status: Status) -> None:
    emit_event(
        event=f"{EVENT_PREFIX}.{status.phase.value}",
        resource={
            "prefect.resource.id": f"{EVENT_PREFIX}.{notification.project_id}",
            "prefect.resource.name": notification.project_name or notification.project_id,
        },
        payload={
            "summary": notification.summary,
            "event_type": notification.event_type,
            "halt_reason": status.halt_reason.value if status.halt_reason else None,
            "halted_from": status.halted_from.value if status.halted_from else None,
        },
    )
