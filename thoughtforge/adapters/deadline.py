"""One deadline for a whole network call, whatever the other end does.

A socket timeout bounds each read, not the call: a server that sends one byte a second, or a
keep-alive comment now and then, holds the caller as long as it likes. So every socket the call
opens is watched, and shut down once the deadline passes, whatever it is doing: a read blocked on
it in another thread wakes with an error (a close alone would not wake it). The caller then sees
`passed` and reports the deadline, not the error the shutdown caused.

The stdlib requests of `adapters.http` hand their sockets over from their connection class; an
httpx call hands them over through httpcore's `trace` extension, as each connection is made.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from typing import Any


class Deadline:
    """Shuts the call's sockets down once `seconds` have passed since it began (`with`)."""

    def __init__(self, seconds: float) -> None:
        self.passed = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(max(0.0, seconds), self._expire)
        self._timer.daemon = True

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            if self.passed:
                _shut(sock)

    def trace(self, event: str, info: dict[str, Any]) -> None:
        """httpcore's `trace` extension: watch each connection's socket as soon as it is made
        (a TLS connection's too), so a server silent before its headers is cut off as well."""
        if event not in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            return
        stream = info.get("return_value")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if isinstance(sock, socket.socket):
            self.watch(sock)

    def _expire(self) -> None:
        with self._lock:
            self.passed = True
            for sock in self._sockets:
                _shut(sock)

    def __enter__(self) -> Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._timer.cancel()


def _shut(sock: socket.socket) -> None:
    """Wakes a read blocked on `sock` in another thread."""
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
