"""The ntfy channel: the summary is POSTed to `<url>/<topic>`, the rest goes in headers.

ntfy reads the title, priority and tags from request headers. Header bytes reach ntfy as they
are and it reads them as UTF-8, so even a latin-1 "é" would arrive garbled: a title that is not
plain printable ASCII goes as an RFC 2047 encoded-word, which ntfy decodes. ASCII titles go as
they are, readable by any server version.
"""

from __future__ import annotations

import base64
from typing import NamedTuple

from thoughtforge.adapters.http import Reply, request
from thoughtforge.config import NtfyChannel
from thoughtforge.core.hooks import EventType, Notification
from thoughtforge.errors import ServiceError

_APP_TAG = "thoughtforge"


class _Style(NamedTuple):
    priority: int
    """ntfy's 1 (min) to 5 (max): 4 pops up and vibrates, 3 is a normal notification."""
    tag: str
    """An emoji short code, which ntfy shows in front of the title."""


_STYLES: dict[EventType, _Style] = {
    "error": _Style(4, "rotating_light"),
    "guard_triggered": _Style(4, "warning"),
    "human_needed": _Style(4, "raising_hand"),
    "convergence_success": _Style(3, "white_check_mark"),
    "milestone_complete": _Style(3, "construction"),
}


def describe_ntfy(channel: NtfyChannel) -> str:
    """The server and topic, which is what a subscriber knows the channel by."""
    return f"ntfy {channel.url}/{channel.topic}"


def send_ntfy(channel: NtfyChannel, notification: Notification, timeout: float) -> None:
    """Publish one message; `ServiceError` when the server does not accept it."""
    style = _STYLES[notification.event_type]
    name = notification.project_name or notification.project_id
    headers = {
        "Title": _header_text(f"ThoughtForge: {name} ({notification.phase})"),
        "Priority": str(style.priority),
        "Tags": f"{style.tag},{_APP_TAG}",
    }
    if channel.token is not None:
        headers["Authorization"] = f"Bearer {channel.token.get_secret_value()}"
    request(
        "POST",
        f"{channel.url}/{channel.topic}",
        timeout=timeout,
        body=notification.summary.encode("utf-8"),
        headers=headers,
    )


def check_ntfy(channel: NtfyChannel, timeout: float) -> str | None:
    """Ask the server's health endpoint, which publishes nothing and needs no token."""
    url = f"{channel.url}/v1/health"
    try:
        reply = request("GET", url, timeout=timeout)
    except ServiceError as exc:
        return str(exc)
    if _says_healthy(reply):
        return None
    return f"GET {url}: not a healthy ntfy server (it answered {reply.body[:100]!r})"


def _says_healthy(reply: Reply) -> bool:
    """ntfy answers `{"healthy": true}`; a proxy or captive portal answers something else."""
    try:
        answer = reply.parsed()
    except ServiceError:
        return False
    return isinstance(answer, dict) and answer.get("healthy") is True


def _header_text(text: str) -> str:
    """`text` as a header value: as is when printable ASCII, else a UTF-8 encoded-word."""
    if text.isascii() and text.isprintable():
        return text
    return f"=?UTF-8?B?{base64.b64encode(text.encode('utf-8')).decode('ascii')}?="
