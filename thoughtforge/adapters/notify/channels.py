"""The configured channels as one `Notifier`, plus what `thoughtforge doctor` asks of them.

Each channel type has one entry in `_KINDS` (how to send, check and describe it), so a new type
is one row, not a branch in every function. Channels are best-effort and independent: one that
fails never keeps the others from being told.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, Generic, TypeVar

from thoughtforge.adapters.notify.ntfy import check_ntfy, describe_ntfy, send_ntfy
from thoughtforge.adapters.notify.webhook import check_webhook, describe_webhook, send_webhook
from thoughtforge.config import NotificationChannel, NotificationsConfig
from thoughtforge.core.hooks import Notification
from thoughtforge.core.project import Project
from thoughtforge.errors import ServiceError, ThoughtForgeError

TEST_PROJECT_ID = "thoughtforge-doctor"

_C = TypeVar("_C")


@dataclass(frozen=True)
class _Kind(Generic[_C]):
    send: Callable[[_C, Notification, float], None]
    check: Callable[[_C, float], str | None]
    describe: Callable[[_C], str]


_KINDS: dict[str, _Kind[Any]] = {
    "ntfy": _Kind(send_ntfy, check_ntfy, describe_ntfy),
    "webhook": _Kind(send_webhook, check_webhook, describe_webhook),
}


def describe(channel: NotificationChannel) -> str:
    """How the channel is named to the operator: never a token, never a webhook's path."""
    return _KINDS[channel.type].describe(channel)


def check(channel: NotificationChannel, timeout: float) -> str | None:
    """None when the channel looks reachable, else why not; sends no notification."""
    return _KINDS[channel.type].check(channel, timeout)


def send_test(channel: NotificationChannel, timeout: float) -> None:
    """Deliver one real notification through `channel`; `ServiceError` when it fails."""
    notification = Notification(
        project_id=TEST_PROJECT_ID,
        project_name=None,
        phase="doctor",
        event_type="milestone_complete",
        summary="This is a ThoughtForge test notification: this channel works.",
    )
    _send(channel, notification, timeout)


class ChannelNotifier:
    """The `Notifier` for `notifications` in config.yaml, read afresh at every send."""

    def __init__(self, settings: Callable[[], NotificationsConfig]) -> None:
        self._settings = settings

    def send(self, project: Project, notification: Notification) -> None:
        """Tell every channel in order; then one `ServiceError` naming each that failed."""
        deliveries = self.deliveries(notification)
        failures = [reason for _, deliver in deliveries if (reason := _failure(deliver))]
        if failures:
            count = f"{len(failures)} of {len(deliveries)}"
            raise ServiceError(f"{count} notification channel(s) failed: " + "; ".join(failures))

    def deliveries(self, notification: Notification) -> list[tuple[str, Callable[[], None]]]:
        """One call per channel, named as `describe` names it: the courier runs each on a lane
        of its own, so a slow channel delays no other. A call that fails raises a
        `ServiceError` naming its channel."""
        try:
            settings = self._settings()
        except ThoughtForgeError as exc:
            raise ServiceError(f"cannot read the notification settings: {exc}") from None
        if not settings.enabled:
            return []
        return [
            (describe(channel), partial(_deliver, channel, notification, settings.timeout_seconds))
            for channel in settings.channels
        ]


def _failure(deliver: Callable[[], None]) -> str | None:
    """Why a delivery failed, or None: a failure must not stop the channels after it."""
    try:
        deliver()
    except ServiceError as exc:
        return str(exc)
    return None


def _deliver(channel: NotificationChannel, notification: Notification, timeout: float) -> None:
    try:
        _send(channel, notification, timeout)
    except ServiceError as exc:
        raise ServiceError(f"{describe(channel)} ({exc})", status=exc.status) from None


def _send(channel: NotificationChannel, notification: Notification, timeout: float) -> None:
    """The channel's sender, its token masked in any error: an error page may echo headers."""
    try:
        _KINDS[channel.type].send(channel, notification, timeout)
    except ServiceError as exc:
        message = str(exc)
        if channel.token is not None:
            message = message.replace(channel.token.get_secret_value(), "***")
        raise ServiceError(message, status=exc.status) from None
