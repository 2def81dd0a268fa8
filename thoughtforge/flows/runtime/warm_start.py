"""Flow runs started from a warm process: a deployed run is running in a fraction of a second.

Prefect's process worker starts every flow run as `python -m prefect.engine`, a new interpreter
that imports Prefect and the flows again: about three seconds before a run re-entered by the
person's answer, or a new project, reaches its first line. `up` starts a *starter* next to the
worker: one process that has imported all of that once and forks a copy of itself per flow run.
The deployments `up` makes tell the worker to run `python -m thoughtforge.flows.runtime.warm_start
NAME`, a stdlib-only *launcher* that hands its environment, folder and standard streams to the
starter and then stands in for the run: it forwards the worker's signals to it and exits with its
status. A worker started by `up` or `thoughtforge worker` names its own starter in `WARM_START_ENV`,
which its launchers use instead of the deployment's NAME: each machine, and each worker of a
machine, has its own. With no starter there (a worker started by hand elsewhere), or once
ThoughtForge's code changed since the starter loaded it, the launcher runs `prefect.engine` itself,
as `python -m` would: nothing depends on the starter, and no run gets stale code.

The starter listens on a Linux abstract socket and serves only its own user, and a launcher
talks only to a starter of its own user (peer credentials both ways: anyone can bind a name).
A launcher that dies, even with SIGKILL, closes its connection, and the starter then stops that
run (SIGTERM, SIGKILL after `STOP_GRACE_SECONDS`), as the worker would have.

One module of about 300 lines on purpose: the launcher and the starter are the two ends of one
socket protocol (its address, its messages, the peer checks) and must change together; the
module imports only the standard library at its top, which is what keeps the launcher light.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import runpy
import selectors
import shlex
import signal
import socket
import struct
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from thoughtforge.stack.warm_start_address import WARM_START_ENV

STOP_GRACE_SECONDS = 10.0
_MAX_MESSAGE = 1 << 20
_PRELOAD = (
    "prefect.flow_engine",
    "thoughtforge.flows.pipeline",
    "thoughtforge.flows.polish",
    "thoughtforge.flows.repolish",
    "thoughtforge.plugins.plan",  # the builders, which the flows import only when they build
    "thoughtforge.plugins.code.builder",
    "rapidfuzz",  # imported by the first check that matches text, not by the flows
    "json_repair",
)
"""What every run needs soon, loaded once. Not pybars (its grammar is slow to build and large; see
bench/bench_import_costs.py): a run
that builds a plan pays that once; preloaded, it would be resident in every run, even one that
only waits for the person."""


def launcher_command(name: str) -> str:
    """What the worker runs for a flow run of a deployment `up` made. The environment's
    `python`, whichever of its names started this process (`python3`, from a console script),
    so the deployments `up` compares stay the same; quoted, as the worker splits the command
    as a shell would (a clone in `~/my projects/` has a space in it)."""
    named = Path(sys.executable).with_name("python")
    python = named if named.exists() else Path(sys.executable)
    return shlex.join([str(python), "-m", "thoughtforge.flows.runtime.warm_start", name])


def launch(name: str) -> int:
    """The launcher: the run in a fork of the starter, or, without one, `prefect.engine` here."""
    try:
        connection = _connect(os.environ.get(WARM_START_ENV) or name)
    except OSError:
        return _engine_here()
    request = {"env": dict(os.environ), "cwd": str(Path.cwd())}
    socket.send_fds(connection, [json.dumps(request).encode()], [0, 1, 2])
    answer = _receive(connection)
    if "pid" not in answer:  # ThoughtForge's code changed since the starter loaded it
        connection.close()
        return _engine_here()
    child = answer["pid"]
    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(number, lambda signum, _frame: _forward(child, signum))
    while True:
        try:
            message = _receive(connection)
        except (OSError, ValueError):  # the starter is gone, and the run with it
            return 1
        if "status" in message:
            return int(message["status"])


def _engine_here() -> int:
    """`python -m prefect.engine` in this fresh process, its API clients sharing one TLS context
    from the first (`tls_context`), as they do in the starter's runs; the process worker's own
    command when Prefect no longer runs that way (`prefect_internals`)."""
    from thoughtforge.flows.runtime.prefect_internals import WARM_START, usable

    if not usable(WARM_START):
        prefect = str(Path(sys.executable).with_name("prefect"))
        os.execv(prefect, [prefect, "flow-run", "execute"])
    from thoughtforge.flows.runtime.tls_context import share_one_tls_context

    share_one_tls_context()
    _as_prefect_engine()
    return 0


def serve(name: str) -> None:
    """The starter: import once, then fork a run per launcher, until stopped. None when Prefect
    no longer runs a flow run the way it forks them (`prefect_internals`): runs start cold."""
    from thoughtforge.flows.runtime.prefect_internals import RUN_INTERNALS, WARM_START, usable

    if not usable(WARM_START):
        sys.exit(1)
    for module in _PRELOAD:
        __import__(module)
    for key in RUN_INTERNALS:  # checked once here (a warning in this log), not in every run
        usable(key)
    if threading.active_count() > 1:  # a fork copies no thread, but may copy a lock one holds
        raise RuntimeError(f"importing the flows started threads: {threading.enumerate()}")
    code = _LoadedCode()  # before listening: an edit made once a launcher can connect is seen
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(f"\0{name}")
    listener.listen(64)
    _Starter(listener, code).run()


def _connect(name: str) -> socket.socket:
    """The starter of this user: anyone may bind an abstract name, and the launcher hands over
    its environment (API keys) and streams, so a socket another user listens on is refused."""
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    connection.connect(f"\0{name}")
    if _peer_uid(connection) != os.getuid():
        connection.close()
        raise PermissionError(f"the socket {name} belongs to another user")
    return connection


def _receive(connection: socket.socket) -> dict[str, int]:
    data = connection.recv(_MAX_MESSAGE)
    if not data:
        raise ValueError("closed")
    return dict(json.loads(data))


def _peer_uid(connection: socket.socket) -> int:
    pid_uid_gid = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
    return int(struct.unpack("3i", pid_uid_gid)[1])


def _forward(child: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(child, signum)


class _LoadedCode:
    """ThoughtForge's modules as the starter loaded them: a run must never get code older than
    the files (after a `git pull`, or an edit), so once one changed, launchers start cold until
    the next `down`/`up` starts a new starter."""

    def __init__(self) -> None:
        self.loaded = {
            path: path.stat().st_mtime_ns
            for name, module in list(sys.modules.items())
            if name.startswith("thoughtforge") and (path := _source_of(module)) is not None
        }

    def changed(self) -> bool:
        for path, loaded in self.loaded.items():
            try:
                if path.stat().st_mtime_ns != loaded:
                    return True
            except OSError:
                return True
        return False


def _source_of(module: object) -> Path | None:
    name = getattr(module, "__file__", None)
    return Path(name) if name and Path(name).exists() else None


@dataclass
class _Run:
    connection: socket.socket
    pid: int
    exited: int
    """A pidfd: readable once the run's process has ended."""
    stop_by: float | None = field(default=None)


class _Starter:
    def __init__(self, listener: socket.socket, code: _LoadedCode) -> None:
        self.code = code
        self.listener = listener
        self.selector = selectors.DefaultSelector()
        self.selector.register(listener, selectors.EVENT_READ, self._accept)
        self.runs: dict[int, _Run] = {}

    def run(self) -> None:
        while True:
            for key, _ in self.selector.select(timeout=1.0):
                key.data(key.fileobj)
            self._stop_overdue()

    def _accept(self, listener: socket.socket) -> None:
        connection, _ = listener.accept()
        try:
            uid = _peer_uid(connection)
            if uid != os.getuid():
                raise PermissionError(f"a launcher of user {uid}")
            data, fds, _, _ = socket.recv_fds(connection, _MAX_MESSAGE, 3)
            request = json.loads(data)
            if len(fds) != 3:
                raise ValueError("a launcher without its standard streams")
        except (OSError, ValueError) as exc:
            print(f"warm start refused: {exc}", file=sys.stderr, flush=True)
            connection.close()
            return
        if self.code.changed():
            for descriptor in fds:
                os.close(descriptor)
            connection.send(json.dumps({"stale": True}).encode())
            connection.close()
            return
        pid = os.fork()
        if pid == 0:
            self._become_run(request, fds)
        for descriptor in fds:
            os.close(descriptor)
        run = _Run(connection=connection, pid=pid, exited=os.pidfd_open(pid))
        self.runs[run.exited] = run
        self.selector.register(run.exited, selectors.EVENT_READ, self._reap)
        self.selector.register(connection, selectors.EVENT_READ, self._launcher_spoke)
        connection.send(json.dumps({"pid": pid}).encode())

    def _become_run(self, request: dict[str, object], fds: list[int]) -> None:
        """In the forked child: the launcher's streams, environment and folder, then the engine."""
        self.selector.close()
        self.listener.close()
        for run in self.runs.values():
            run.connection.close()
            os.close(run.exited)
        for target, descriptor in enumerate(fds):
            os.dup2(descriptor, target)
            os.close(descriptor)
        # the request is the JSON a run's command sent: its env maps str to str
        _run_engine(dict(request["env"]), str(request["cwd"]))  # type: ignore[call-overload]

    def _launcher_spoke(self, connection: socket.socket) -> None:
        """A launcher says nothing after its request: readable means it has gone."""
        run = next(run for run in self.runs.values() if run.connection is connection)
        self.selector.unregister(connection)
        _forward(run.pid, signal.SIGTERM)
        run.stop_by = time.monotonic() + STOP_GRACE_SECONDS

    def _reap(self, exited: int) -> None:
        run = self.runs.pop(exited)
        _, wait_status = os.waitpid(run.pid, 0)
        self.selector.unregister(exited)
        os.close(exited)
        if run.stop_by is None:
            self.selector.unregister(run.connection)
            status = os.waitstatus_to_exitcode(wait_status)
            status = 128 - status if status < 0 else status  # -N: signal N, as a shell says
            with contextlib.suppress(OSError):
                run.connection.send(json.dumps({"status": status}).encode())
        run.connection.close()

    def _stop_overdue(self) -> None:
        now = time.monotonic()
        for run in self.runs.values():
            if run.stop_by is not None and now > run.stop_by:
                _forward(run.pid, signal.SIGKILL)


def _run_engine(env: dict[str, str], cwd: str) -> None:
    """`python -m prefect.engine`, in this already warm process; never returns."""
    from prefect.context import refresh_global_settings_context

    code = 1
    try:
        os.environ.clear()
        os.environ.update(env)
        os.chdir(cwd)
        signal.signal(signal.SIGINT, signal.default_int_handler)  # as a new interpreter has them
        for number in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(number, signal.SIG_DFL)
        refresh_global_settings_context()
        _as_prefect_engine()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 - whatever ends the run is told, and ends its process
        traceback.print_exc()
    finally:
        _exit(code)


def _as_prefect_engine() -> None:
    sys.modules.pop("prefect.engine", None)  # run afresh as __main__, as `-m` would
    sys.argv = ["prefect.engine"]
    runpy.run_module("prefect.engine", run_name="__main__", alter_sys=True)


def _exit(code: int) -> None:
    """Exit as an interpreter would (exit handlers, flushed streams), but from inside the
    starter's loop, which the run must never return into."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "--serve":
        serve(argv[1])
        return 0
    if len(argv) == 1:
        return launch(argv[0])
    print("usage: python -m thoughtforge.flows.runtime.warm_start [--serve] NAME", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
