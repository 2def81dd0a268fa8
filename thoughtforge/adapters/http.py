"""One HTTP request with a timeout, for the adapters that talk to a service (board, channels).

The standard library is enough for a POST or a small JSON call, and keeps the CLI's start-up
light. Every failure, from a refused connection to an HTTP 500, is one `ServiceError` that names
the method and the URL; request headers (which may hold a token) never appear in it.

A service that did not answer at all (refused, timed out) is not called again for
`QUIET_SECONDS`: those calls fail at once, so a dead board costs one timeout, not one per update,
and a process never waits at exit for calls that cannot succeed.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel

from thoughtforge.errors import ServiceError

_MAX_ERROR_BODY = 200
MAX_REPLY_BYTES = 10 * 1024 * 1024
"""No board or channel call needs more; a service that sends more is refused, not buffered."""
QUIET_SECONDS = 30.0
_silent: dict[str, tuple[float, str]] = {}
"""Each service that did not answer: when, and why."""
_silent_lock = threading.Lock()


class Reply(BaseModel):
    status: int
    body: bytes

    def json(self) -> Any:
        try:
            return json.loads(self.body or b"null")
        except ValueError as exc:
            raise ServiceError(f"the reply is not JSON ({exc})", status=self.status) from None


def request(
    method: str,
    url: str,
    *,
    timeout: float,
    body: bytes | None = None,
    json_body: Any = None,
    headers: dict[str, str] | None = None,
) -> Reply:
    """The reply to a 2xx answer; `ServiceError` for anything else."""
    headers = dict(headers or {})
    for name, value in headers.items():
        if not value.isprintable() or not value.isascii():
            raise ServiceError(f"{method} {url}: the {name} header holds a value it cannot send")
    service = urlsplit(url).netloc
    _refuse_if_silent(method, url, service)
    if json_body is not None:
        body = json.dumps(json_body).encode()
        headers.setdefault("Content-Type", "application/json")
    call = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(call, timeout=timeout) as response:
            reply = Reply(status=response.status, body=_body(response))
    except urllib.error.HTTPError as exc:
        detail = _error_page(exc)
        reason = f"HTTP {exc.code}" + (f": {detail}" if detail else "")
        raise ServiceError(f"{method} {url}: {reason}", status=exc.code) from None
    except (OSError, ValueError, http.client.HTTPException) as exc:
        reason = _reason(exc)
        with _silent_lock:
            _silent[service] = (time.monotonic(), reason)
        raise ServiceError(f"{method} {url}: {reason}") from None
    with _silent_lock:
        _silent.pop(service, None)
    if len(reply.body) > MAX_REPLY_BYTES:
        raise ServiceError(f"{method} {url}: the reply is over {MAX_REPLY_BYTES} bytes")
    return reply


def _body(response: http.client.HTTPResponse) -> bytes:
    """The whole body (a reply cut short raises), but never more than the limit and one byte."""
    if response.length is not None and response.length <= MAX_REPLY_BYTES:
        return response.read()
    return response.read(MAX_REPLY_BYTES + 1)


def _refuse_if_silent(method: str, url: str, service: str) -> None:
    with _silent_lock:
        since, reason = _silent.get(service, (None, ""))
    if since is None:
        return
    age = time.monotonic() - since
    if age < QUIET_SECONDS:
        why = f"not tried: it did not answer {age:.0f} s ago ({reason})"
        raise ServiceError(f"{method} {url}: {why}")


def _error_page(exc: urllib.error.HTTPError) -> str:
    """The start of an error reply's body; none when it stalls or is cut short."""
    try:
        return exc.read(_MAX_ERROR_BODY).decode("utf-8", "replace").strip()
    except (OSError, ValueError, http.client.HTTPException):
        return ""


def _reason(exc: BaseException) -> str:
    if isinstance(exc, urllib.error.URLError) and not isinstance(exc.reason, str):
        return _reason(exc.reason)
    if isinstance(exc, TimeoutError):
        return "timed out"
    if isinstance(exc, http.client.BadStatusLine) and not isinstance(exc, ConnectionError):
        return f"the answer is not HTTP (it began {exc.line.strip()[:40]!r})"
    return str(getattr(exc, "strerror", None) or getattr(exc, "reason", None) or exc)
