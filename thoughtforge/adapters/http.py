"""One HTTP request with a timeout, for the adapters that talk to a service (board, channels).

The standard library is enough for a POST or a small JSON call, and keeps the CLI's start-up light:
importing httpx (the HTTP agent's client) costs a command more than `urllib.request`
(bench/bench_import_costs.py), and `say`/`status` must answer within half a second (and httpx's
timeouts, too, bound each read, not the call).

Every failure, from a refused connection to an HTTP 500, is one `ServiceError` that names
the method and the URL; request headers (which may hold a token) never appear in it.

The timeout bounds the whole request, not each read: a socket timeout alone lets a service that
sends one byte a second hold a call (and whoever waits on it) for as long as it likes. So the
request's socket is shut down when the timeout has passed, whatever it is doing
(`adapters.deadline`, which the HTTP agent's calls share).

A service that did not answer at all (refused, timed out) is not called again for
`QUIET_SECONDS`: those calls fail at once, so a dead board costs one timeout, not one per update,
and a process never waits at exit for calls that cannot succeed.
"""

from __future__ import annotations

import functools
import http.client
import json
import threading
import time
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel

from thoughtforge.adapters.deadline import Deadline
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

    def parsed(self) -> Any:
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
    with Deadline(timeout) as deadline:
        opener = urllib.request.build_opener(
            _WatchedHTTPHandler(deadline), _WatchedHTTPSHandler(deadline)
        )
        try:
            with opener.open(call, timeout=timeout) as response:
                reply = Reply(status=response.status, body=_body(response))
        except urllib.error.HTTPError as exc:
            detail = _error_page(exc)
            reason = f"HTTP {exc.code}" + (f": {detail}" if detail else "")
            raise ServiceError(f"{method} {url}: {reason}", status=exc.code) from None
        except (OSError, ValueError, http.client.HTTPException) as exc:
            reason = "timed out" if deadline.passed else _reason(exc)
            with _silent_lock:
                _silent[service] = (time.monotonic(), reason)
            raise ServiceError(f"{method} {url}: {reason}") from None
    with _silent_lock:
        _silent.pop(service, None)
    if len(reply.body) > MAX_REPLY_BYTES:
        raise ServiceError(f"{method} {url}: the reply is over {MAX_REPLY_BYTES} bytes")
    return reply


class _WatchedHTTP(http.client.HTTPConnection):
    """A connection whose socket the request's deadline can shut down."""

    def __init__(self, *args: Any, deadline: Deadline, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline = deadline

    def connect(self) -> None:
        super().connect()
        self._deadline.watch(self.sock)


class _WatchedHTTPS(_WatchedHTTP, http.client.HTTPSConnection):
    pass


class _WatchedHTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, deadline: Deadline) -> None:
        super().__init__()
        self._deadline = deadline

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(functools.partial(_WatchedHTTP, deadline=self._deadline), req)


class _WatchedHTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, deadline: Deadline) -> None:
        super().__init__()
        self._deadline = deadline

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(
            functools.partial(_WatchedHTTPS, deadline=self._deadline),
            req,
            context=self._context,  # type: ignore[attr-defined]  # HTTPSHandler's; typeshed omits it
        )


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
        line = exc.line  # type: ignore[attr-defined]  # typeshed omits what __init__ sets
        return f"the answer is not HTTP (it began {line.strip()[:40]!r})"
    return str(getattr(exc, "strerror", None) or getattr(exc, "reason", None) or exc)
