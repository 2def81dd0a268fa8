"""One request's exchange with a chat-completions server: what the server did so far (what a
failure names), its body read within the call's deadline and `agents.max_reply_bytes`, and its
JSON and error text made safe to show.

The deadline is checked as each piece arrives (the watchdog, `adapters.deadline`, shuts the
sockets when it passes); no body is read past its cap, and the cap is refused before a byte is
read when the server announces more.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
from pydantic import BaseModel

from thoughtforge.adapters.deadline import Deadline
from thoughtforge.bounded_input import parse_json
from thoughtforge.config import OpenAIAgentSpec
from thoughtforge.errors import AttemptFailure, FailureKind

EXCERPT_CHARS = 300
ERROR_BYTES = 64 * 1024
"""An error body is read this far: its message is at the start."""
ENVELOPE_BYTES = 64 * 1024
"""A completion's JSON besides its text: ids, the role, usage."""


class HttpReply(BaseModel):
    """The reply, or why there is none; `seconds` counts only the successful exchange."""

    text: str = ""
    failure: AttemptFailure | None = None
    finish_reason: str | None = None
    completion_tokens: int | None = None


EMPTY = AttemptFailure(kind=FailureKind.EMPTY, reason="empty reply")


def failed(kind: FailureKind, reason: str) -> HttpReply:
    return HttpReply(failure=AttemptFailure(kind=kind, reason=reason))


class Refused(Exception):
    """The server's reply cannot be used; the message says what it did and what to change."""

    def __init__(self, kind: FailureKind, reason: str) -> None:
        self.kind = kind
        super().__init__(reason)


class Late(Exception):
    """The call's deadline passed while the reply was being read."""


class Exchange:
    """One request and what the server did with it so far: what a failure names."""

    def __init__(
        self, *, name: str, spec: OpenAIAgentSpec, deadline: float, max_bytes: int
    ) -> None:
        self.name, self.spec, self.deadline, self.max_bytes = name, spec, deadline, max_bytes
        self.connected = False
        self.status: int | None = None
        self.announced: int | None = None
        self.received = 0
        self.comments = 0
        self.events = 0
        self.text_bytes = 0
        self.body: Iterator[bytes] = iter(())
        self.watchdog: Deadline | None = None

    def trace(self, watchdog: Deadline) -> Callable[[str, dict[str, Any]], None]:
        self.watchdog = watchdog

        def on_event(event: str, info: dict[str, Any]) -> None:
            if event == "connection.connect_tcp.complete":
                self.connected = True
            watchdog.trace(event, info)

        return on_event

    def replied(self, response: httpx.Response) -> None:
        self.status = response.status_code
        announced = response.headers.get("content-length", "")
        self.announced = int(announced) if announced.isdigit() else None

    def what_happened(self) -> str:
        if not self.connected:
            return f"no connection to {self.spec.base_url} was made"
        if self.status is None:
            return "the server took the request but sent no response headers"
        if self.comments and not self.events:
            return (
                f"the server sent only {self.comments} keep-alive comment line(s) "
                "(such as ': PROCESSING') and no reply"
            )
        if self.events:
            return (
                f"the reply was still streaming ({self.events} events, "
                f"{self.text_bytes:,} bytes of text so far)"
            )
        if self.announced is not None:
            return f"the server sent {self.received:,} of the {self.announced:,} bytes it announced"
        return f"the server sent {self.received:,} bytes of its reply, then nothing more"

    def chunks(self, limit: int | None) -> Iterator[bytes]:
        """The body as it arrives, never more than `limit` bytes (a stream's events are limited
        one by one instead), stopped at the deadline."""
        if limit is not None and self.announced is not None and self.announced > limit:
            raise Refused(
                FailureKind.TOO_LARGE,
                f"the server announced a {self.announced:,}-byte reply, over what "
                f"agents.max_reply_bytes ({self.max_bytes:,}) allows; none of it was read",
            )
        for chunk in self.body:
            self.received += len(chunk)
            if time.monotonic() > self.deadline:
                raise Late
            if limit is not None and self.received > limit:
                raise Refused(
                    FailureKind.TOO_LARGE,
                    f"reply longer than agents.max_reply_bytes ({self.max_bytes:,} bytes): "
                    f"cut at {limit:,} bytes of what the server sent",
                )
            yield chunk
        if self.watchdog is not None and self.watchdog.passed:
            raise Late  # the body "ended" because the watchdog shut the socket


def body_limit(max_bytes: int) -> int:
    """A completion's JSON around `max_bytes` of text: escapes, ids, usage."""
    return 2 * max_bytes + ENVELOPE_BYTES


def status_text(response: httpx.Response, exchange: Exchange) -> str:
    """`HTTP <status>: <what the server said>`, from the first bytes of its body."""
    exchange.body = response.iter_bytes()
    body = b""
    with contextlib.suppress(Refused):
        for chunk in exchange.chunks(ERROR_BYTES * 16):
            body += chunk
            if len(body) >= ERROR_BYTES:
                break
    if is_html(response, body):
        detail = f"an HTML page{html_title(body)}"
    else:
        try:
            detail = error_message(server_json(body))
        except ValueError:
            detail = body.decode("utf-8", "replace")
    detail = " ".join(detail.split())[:EXCERPT_CHARS]
    return f"HTTP {response.status_code}" + (f": {detail}" if detail else "")


def is_html(response: httpx.Response, body: bytes) -> bool:
    kind = response.headers.get("content-type", "").lower()
    return "html" in kind or body.lstrip()[:15].lower().startswith((b"<!doctype", b"<html"))


def html_title(body: bytes) -> str:
    match = re.search(rb"<title[^>]*>([^<]{1,120})", body[:ERROR_BYTES], re.IGNORECASE)
    return f" ({' '.join(match.group(1).decode('utf-8', 'replace').split())!r})" if match else ""


def server_json(data: bytes) -> Any:
    """A model server's JSON, every string made safe to write: a `\\ud800` escape decodes to a
    lone surrogate, which no UTF-8 file, terminal or page can take, so it becomes U+FFFD."""
    return _without_lone_surrogates(parse_json(data, "the model server's reply"))


def _without_lone_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        if _SURROGATE.search(value) is None:
            return value
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_without_lone_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {
            _without_lone_surrogates(key): _without_lone_surrogates(item)
            for key, item in value.items()
        }
    return value


_SURROGATE = re.compile("[\ud800-\udfff]")


def text_or(value: Any, default: str | None) -> str | None:
    return value if isinstance(value, str) and value else default


def error_message(payload: Any) -> str:
    """OpenAI's `{"error": {"message": …}}`, or whatever the server sent."""
    if isinstance(payload, dict):
        error = payload.get("error", payload)
        message = error.get("message") if isinstance(error, dict) else None
        if isinstance(message, str):
            return message
        if isinstance(error, str):
            return error
    return json.dumps(payload)[:EXCERPT_CHARS]
