"""The generic webhook channel: the notification as JSON, POSTed to any HTTP endpoint.

A webhook URL's path and query are often the secret itself (Slack, Discord, ntfy-style relays),
so nothing here ever shows more of it than `scheme://host[:port]/…`.
"""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

from thoughtforge.adapters.http import request
from thoughtforge.config import WebhookChannel
from thoughtforge.core.hooks import Notification
from thoughtforge.errors import ServiceError

_DEFAULT_PORTS = {"http": 80, "https": 443}


def public_url(url: str) -> str:
    """`url` without its path, query or credentials: safe to print, log or raise."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    port = f":{parts.port}" if parts.port is not None else ""
    return f"{parts.scheme}://{host}{port}/…"


def describe_webhook(channel: WebhookChannel) -> str:
    """The host only: enough to tell two webhooks apart, never their secret path."""
    return f"webhook {public_url(channel.url)}"


def send_webhook(channel: WebhookChannel, notification: Notification, timeout: float) -> None:
    """POST the notification's fields as a JSON object; `ServiceError` names only the host."""
    headers = {}
    if channel.token is not None:
        headers["Authorization"] = f"Bearer {channel.token.get_secret_value()}"
    try:
        request(
            "POST",
            channel.url,
            timeout=timeout,
            json_body=notification.model_dump(mode="json"),
            headers=headers,
        )
    except ServiceError as exc:
        raise ServiceError(_redact(str(exc), channel.url), status=exc.status) from None


def check_webhook(channel: WebhookChannel, timeout: float) -> str | None:
    """Whether the endpoint accepts a TCP connection: a POST would deliver a notification."""
    parts = urlsplit(channel.url)
    address = (parts.hostname or "", parts.port or _DEFAULT_PORTS[parts.scheme])
    try:
        socket.create_connection(address, timeout=timeout).close()
    except OSError as exc:
        return f"cannot connect to {public_url(channel.url)}: {exc.strerror or exc}"
    return None


def _redact(text: str, url: str) -> str:
    """`text` with the URL, and any echo of its path or query (a 404 page), made public."""
    parts = urlsplit(url)
    text = text.replace(url, public_url(url))
    path_and_query = parts.path + (f"?{parts.query}" if parts.query else "")
    for secret in (path_and_query, parts.path, parts.query):
        if secret.strip("/"):
            text = text.replace(secret, "/…")
    return text
