"""A Prefect server for one command that found none running (`thoughtforge run` without `up`).

Left to itself, Prefect starts one (`SubprocessASGIServer`) in the command's process group, so
Ctrl-C stopped it together with the run: the run could not record how it ended, and the command
then spent about a minute retrying to send its last logs before it gave the prompt back (66 s
measured). That server's UI is off, so the run page the command prints did not exist, and its
SQLite transactions fail "database is locked" instead of waiting (`flows.runtime.prefect_server`).

This one is `up`'s server (`local_server.server_command`) on a free local port (or the one
`server.temporary_port` pins), in its own session: a Ctrl-C reaches the run only, which records its
end on the server, and this process stops the server at its exit. Killed with -9, the command
cannot: the server then stops itself (`PARENT_ENV`, `prefect_server`), and, should it hang, the flow
has recorded it with the project (`flows.runtime.server_in_use`) for whoever next takes the
project's run lock to end. It listens on 127.0.0.1 whatever `server.host` says: it serves one
command, not a network.
"""

from __future__ import annotations

import atexit
import os
import signal
import socket
import subprocess
import time
from contextlib import suppress
from pathlib import Path

from thoughtforge.config import Config
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.stack.api import configured_url, is_healthy

LOCAL_HOST = "127.0.0.1"
START_SECONDS = 90.0
STOP_GRACE_SECONDS = 5.0
PORT_ATTEMPTS = 3
"""A free port can be taken by another process before the server binds it: try another."""
PARENT_ENV = "THOUGHTFORGE_SERVER_PARENT"
"""The pid of the command a server was started for: it stops when that process ends."""

_started: list[int] = []


def start_temporary_server(config: Config, directory: Path) -> str:
    """Start the server, wait until it answers, and stop it at this process's exit; returns its
    API URL. Its output goes to `directory`, and is removed with it once it has answered (the
    log of one that did not is kept for the error that names it)."""
    from thoughtforge.stack.local_server import server_command, spawn_logged

    directory.mkdir(parents=True, exist_ok=True)
    log = directory / f"temporary-server-{os.getpid()}.log"
    pinned = config.server.temporary_port
    for _ in range(1 if pinned else PORT_ATTEMPTS):
        local = _on_a_local_port(config, pinned or _free_port())
        args, env = server_command(local)
        process = spawn_logged(args, log, {**env, PARENT_ENV: str(os.getpid())})
        atexit.register(_stop, process, log)  # also when a Ctrl-C comes while it starts
        url = configured_url(local)
        if _answers(process, url, log):
            _started.append(process.pid)
            return url
    if pinned:
        raise ThoughtForgeError(
            f"the temporary Prefect server did not start on port {pinned} "
            "(server.temporary_port, or THOUGHTFORGE_TEMPORARY_PORT): is another program using "
            f"it? See {log}"
        )
    raise ThoughtForgeError(f"the temporary Prefect server did not start; see {log}")


def temporary_server_pid() -> int | None:
    """The server this process started, if any."""
    return _started[-1] if _started else None


def _answers(process: subprocess.Popen[bytes], url: str, log: Path) -> bool:
    """Whether the server answered; False when it exited first (its port was taken)."""
    deadline = time.monotonic() + START_SECONDS
    while not is_healthy(url):
        if process.poll() is not None:
            return False
        if time.monotonic() > deadline:
            _stop(process, log)
            raise ThoughtForgeError(
                f"the temporary Prefect server did not answer within {START_SECONDS:.0f} s; "
                f"see {log}"
            )
        time.sleep(0.1)
    return True


def _stop(process: subprocess.Popen[bytes], log: Path) -> None:
    """Ask the server's process group to stop, then kill what is left of it."""
    if process.poll() is None:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=STOP_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            with suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    if process.pid in _started:
        log.unlink(missing_ok=True)


def _free_port() -> int:
    """A port free right now on this machine."""
    with socket.socket() as probe:
        probe.bind((LOCAL_HOST, 0))
        return int(probe.getsockname()[1])


def _on_a_local_port(config: Config, port: int) -> Config:
    """`config` with its server on this machine only, on `port`."""
    server = config.server.model_copy(update={"host": LOCAL_HOST, "port": port})
    return config.model_copy(update={"server": server})
