"""A real HTTP server on 127.0.0.1 in a thread: what the tests' stand-ins for outside services
(`capture_server`, `fake_notion`, `fake_google`) are built on.

`close()` (or leaving the `with` block) stops it and sets `_released`, which a stand-in waits on
when it holds a reply back, so a test never waits for a delay it set up.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Self

POLL_SECONDS = 0.02
"""How often the serving thread looks for `close()`: the most a test waits for it."""


class _Server(ThreadingHTTPServer):
    """Closing does not wait for a kept-alive connection the client has not closed yet."""

    daemon_threads = True
    block_on_close = False


class LocalHttpServer:
    """Serves `handler` on a free port from the moment it is made."""

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self._released = threading.Event()
        self._httpd = _Server(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(POLL_SECONDS,), daemon=True
        )
        self._thread.start()

    @property
    def url(self) -> str:
        """`http://127.0.0.1:<port>`, without a trailing slash."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def close(self) -> None:
        self._released.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
