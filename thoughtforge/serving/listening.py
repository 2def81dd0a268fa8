"""The socket a door listens on, bound before anything starts: a port in use is a one-line error
naming the setting that moves it, not a traceback from the server once it runs."""

from __future__ import annotations

import errno
import socket

from thoughtforge.errors import ThoughtForgeError


def listen(host: str, port: int, *, what: str, setting: str) -> socket.socket:
    """A listening socket on `host`:`port` (0 takes a free port) for `what` ("the workbench");
    `setting` is how the person picks another port ("web.port (or --port)")."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
    except OSError as exc:
        listener.close()
        if exc.errno == errno.EADDRINUSE:
            raise ThoughtForgeError(
                f"port {port} on {host} is already in use: stop what holds it, or set {setting}"
            ) from None
        raise ThoughtForgeError(f"cannot serve {what} on {host}:{port}: {exc.strerror}") from None
    listener.listen(128)
    return listener
