"""Serving the workbench: uvicorn on `web.host`/`web.port`, in the foreground until stopped.

Bound to anything but a loopback address it logs the spec's warning first: there is no login, so
every client on that network can use it. A port in use is a one-line error before anything
starts. Open live streams are given a moment at shutdown, then closed: the pages reconnect.
"""

from __future__ import annotations

import contextlib
import logging
from pathlib import Path

from thoughtforge.config import Config
from thoughtforge.serving.guard import NON_LOOPBACK_WARNING, is_loopback
from thoughtforge.serving.listening import listen

SHUTDOWN_GRACE_SECONDS = 1
_logger = logging.getLogger("thoughtforge.web")


def page_address(config: Config) -> str:
    """The address a person opens (a wildcard bind is reached on loopback from this machine)."""
    host = config.web.host
    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    shown = f"[{shown}]" if ":" in shown else shown
    return f"http://{shown}:{config.web.port}/"


def serve(config_file: Path, config: Config, page: str = "/") -> None:
    """Run until SIGINT/SIGTERM; port 0 takes a free port. Prints where `page` is."""
    import uvicorn  # here, not above: `up` asks only `page_address`, and must stay quick

    from thoughtforge.web.app import create_app

    host = config.web.host
    if not is_loopback(host):
        _logger.warning("%s", NON_LOOPBACK_WARNING)
        print(f"WARNING: {NON_LOOPBACK_WARNING}", flush=True)
    listener = listen(host, config.web.port, what="the workbench", setting="web.port (or --port)")
    config.web.port = listener.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(config_file, config),
            log_level="warning",
            timeout_graceful_shutdown=SHUTDOWN_GRACE_SECONDS,
            access_log=False,
        )
    )
    print(f"Workbench at {page_address(config).rstrip('/')}{page} (Ctrl-C stops it)", flush=True)
    with contextlib.suppress(KeyboardInterrupt):  # uvicorn stopped cleanly, then re-raised Ctrl-C
        server.run(sockets=[listener])
    print("Workbench stopped.", flush=True)
