"""A real HTTP server on 127.0.0.1 that records what it is sent, for adapter tests.

Tests of the HTTP adapters talk to it through real sockets instead of mocking the HTTP layer:

    with CaptureServer() as server:
        server.answer(500, b"boom")          # optional: the reply to every request from now on
        send_something(server.url + "/topic")
        assert server.requests[0].path == "/topic"

`answer(..., delay=10)` holds each reply back (a timeout test); closing the server releases the
held requests at once, so a test never waits for the delay. `refused_url()` is an address where
nothing listens.
"""

from __future__ import annotations

import json
import socket
from dataclasses import dataclass
from email.message import Message
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.local_http import LocalHttpServer


@dataclass(frozen=True)
class CapturedRequest:
    method: str
    path: str
    """As sent: the path and the query string."""
    headers: Message
    """Case-insensitive; values are the raw header bytes read as latin-1."""
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass(frozen=True)
class _Reply:
    status: int = 200
    body: bytes = b""
    delay: float = 0


class CaptureServer(LocalHttpServer):
    """Answers every request with the configured reply (200, empty body by default)."""

    def __init__(self) -> None:
        self.requests: list[CapturedRequest] = []
        self._reply = _Reply()
        super().__init__(_handler_for(self))

    def answer(self, status: int = 200, body: object = b"", *, delay: float = 0) -> None:
        """Reply with `status` and `body`: bytes as they are, a str as UTF-8, anything else as
        JSON; `delay` seconds late."""
        if isinstance(body, str):
            body = body.encode("utf-8")
        elif not isinstance(body, bytes):
            body = json.dumps(body).encode("utf-8")
        self._reply = _Reply(status, body, delay)

    def _record(self, request: CapturedRequest) -> _Reply:
        self.requests.append(request)
        reply = self._reply
        if reply.delay:
            self._released.wait(reply.delay)
        return reply


def refused_url() -> str:
    """`http://127.0.0.1:<port>` for a port that was free a moment ago: connections are refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def _handler_for(server: CaptureServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _capture(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            reply = server._record(CapturedRequest(self.command, self.path, self.headers, body))
            try:
                self.send_response(reply.status)
                self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)
            except OSError:
                pass  # the client gave up first (a timeout test)

        def __getattr__(self, name: str) -> Any:
            """`do_<METHOD>` for every method: whatever is sent gets recorded."""
            if name.startswith("do_"):
                return self._capture
            raise AttributeError(name)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the test reads `requests`, not stderr."""

    return Handler
