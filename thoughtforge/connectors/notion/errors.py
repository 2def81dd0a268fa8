"""What a Notion failure may show: every `ConnectorError` is named `notion`, and the token is
masked out of messages and out of the SDK's `notion_client` log (a filter on that logger masks
every token a connector registered)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable

from thoughtforge.errors import ConnectorError

NAME = "notion"

sdk_logger = logging.getLogger("notion_client")
"""Handed to the client, so that it does not add a console handler of its own per client."""


class _MaskSecrets(logging.Filter):
    """Masks every token a connector registered, in whatever the SDK's logger is given."""

    def __init__(self) -> None:
        super().__init__()
        self._secrets: set[str] = set()
        self._lock = threading.Lock()

    def add(self, secret: str) -> None:
        with self._lock:
            self._secrets.add(secret)

    def filter(self, record: logging.LogRecord) -> bool:
        with self._lock:
            secrets = tuple(self._secrets)
        if secrets:
            message = record.getMessage()
            masked = mask(message, secrets)
            if masked != message:
                record.msg, record.args = masked, None
        return True


masker = _MaskSecrets()
sdk_logger.addFilter(masker)


def mask(text: str, secrets: Iterable[str]) -> str:
    for secret in secrets:
        if secret:
            text = text.replace(secret, "[token]")
    return text


def malformed(url: str, detail: str) -> ConnectorError:
    return ConnectorError(NAME, url, "malformed_url", f"could not parse URL: {detail}")
