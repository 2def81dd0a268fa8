"""Every phase transition as a Prefect event, `thoughtforge.project.<phase>`, with the project as
its resource, so an automation can act on it (the README shows one that notifies on `halted`)."""

from __future__ import annotations

from prefect.events import emit_event

from thoughtforge.core import Notification, Status, add_transition_listener

EVENT_PREFIX = "thoughtforge.project"


def emit_transition_events() -> None:
    """From now on, in this process."""
    add_transition_listener(_emit)


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
