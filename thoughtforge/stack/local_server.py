"""The one local Prefect server and worker that `thoughtforge up` starts and `down` stops.

Each process is started as the leader of its own process group and recorded (pid and start time)
in `<config dir>/.thoughtforge/`, so `down` stops exactly those, and everything they started, and
never a process that merely reuses a recorded pid. Their output goes to log files beside the
record. A second `up` while the first is starting waits for it (a lock on that folder); an `up`
that finds the server already answering reuses it.
"""

from __future__ import annotations

import errno
import fcntl
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pydantic import BaseModel

from thoughtforge.config import Config
from thoughtforge.core.processes import end_leftover_processes, live_processes, track_process
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.process_tree import descendants
from thoughtforge.stack.api import PrefectApi, PrefectApiError, configured_url, is_healthy
from thoughtforge.stack.database import server_database_env, without_password
from thoughtforge.stack.warm_start_address import WARM_START_ENV, listening, socket_name
from thoughtforge.stack.work_pool import WORK_POOL

SERVER_START_SECONDS = 180.0
"""A first start creates the database, which takes a minute or more on two busy cores."""
WEB_START_SECONDS = 30.0
WARM_START_SECONDS = 30.0
WORKER_POLL_SECONDS = 0.5
"""How often the worker asks for runs to start (Prefect's default is 10 s): a run resumed by
the person's answer waits for this poll before it re-enters."""
DOWN_GRACE_SECONDS = 10.0
Started = subprocess.Popen[bytes] | None
"""A process `up` started, or None when the one it started before is still alive."""
STARTED_BY_UP = {
    "server": "the Prefect server",
    "worker": "the worker",
    "warm-start": "the warm starter",
    "web": "the workbench",
}
"""The processes `up` records (`<name>.pid`), as `down` names them."""


@contextmanager
def exclusive(directory: Path) -> Iterator[None]:
    """One `up` or `down` at a time per set-up."""
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / "lock").open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def missing_parts(config: Config, directory: Path, deployments: Path) -> list[str]:
    """What would stop `up` half-way, found before it starts anything: the commands it runs, the
    flows it deploys, a port something else holds. Empty when it can go ahead."""
    from thoughtforge.stack.deployments import missing_flows

    missing = [
        f"{path} is missing (ThoughtForge's environment is incomplete: reinstall it)"
        for path in (Path(prefect_executable()), _thoughtforge_executable())
        if not path.exists()
    ]
    missing += [
        f"the flow {entrypoint} (in {deployments}) is not in this installation"
        for entrypoint in missing_flows(deployments)
    ]
    server, web = config.server, config.web
    if (
        not _alive(directory, "server")
        and not is_healthy(configured_url(config))
        and _port_taken(server.host, server.port)
    ):
        missing.append(
            f"port {server.port} ({server.host}) is taken by another program: choose another "
            "with `up --port N` (or THOUGHTFORGE_SERVER_PORT, or server.port)"
        )
    if not _alive(directory, "web") and _port_taken(web.host, web.port):
        missing.append(
            f"port {web.port} ({web.host}) is taken by another program: choose another with "
            "`up --web-port N` (or THOUGHTFORGE_WEB_PORT, or web.port)"
        )
    return missing


def _port_taken(host: str, port: int) -> bool:
    """Whether binding `host:port` fails because something listens there. As a server binds it
    (SO_REUSEADDR): the connections a stopped server leaves in TIME_WAIT do not count."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            return exc.errno == errno.EADDRINUSE
    return False


@contextmanager
def stopped_on_failure(directory: Path) -> Iterator[None]:
    """Whatever `up` starts inside the block is stopped again if the block fails, so a failed
    `up` leaves nothing of its own running; what was already running before it stays."""
    before = set(live_processes(directory))
    try:
        yield
    except BaseException:
        started = [pid for pid in live_processes(directory) if pid not in before]
        end_leftover_processes(directory, grace_seconds=DOWN_GRACE_SECONDS, only=started)
        for name in STARTED_BY_UP:
            if _recorded(directory, name) in started:
                (directory / f"{name}.pid").unlink(missing_ok=True)
        raise


def prefect_env(api_url: str, config_file: Path) -> dict[str, str]:
    """The environment of every process `up` starts but the server: the server's API, and this
    config (flow runs started by the worker read it through `THOUGHTFORGE_CONFIG`)."""
    return {
        **without_password(dict(os.environ)),
        "PREFECT_API_URL": api_url,
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "THOUGHTFORGE_CONFIG": str(config_file.resolve()),
    }


def server_command(config: Config) -> tuple[list[str], dict[str, str]]:
    """`prefect server start` (`flows.runtime.prefect_server`: SQLite transactions that wait, not
    fail) on `server.host`/`server.port` and `server.database_url`, and its environment."""
    args = [
        sys.executable,
        "-m",
        "thoughtforge.flows.runtime.prefect_server",
        "--host",
        config.server.host,
        "--port",
        str(config.server.port),
    ]
    env = {
        **without_password(dict(os.environ)),
        **server_database_env(config),
        # The UI asks the API at this address; left alone it assumes port 4200 whatever --port is.
        "PREFECT_UI_API_URL": configured_url(config),
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        # A task run's states are recorded in batches, not one database write each: a polish
        # iteration (one task run) costs the server a third as much, and the UI shows a task
        # run's state up to a second later.
        "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_BATCH_SIZE": "50",
        "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_FLUSH_INTERVAL": "1",
    }
    return args, env


def start_server(config: Config, directory: Path) -> bool:
    """Start the server unless one answers already, or the one recorded in `directory` is alive
    (busy, on a loaded machine: it is waited for, never doubled); False when it was there."""
    url = configured_url(config)
    if is_healthy(url):
        return False
    if _alive(directory, "server"):
        _wait_until_healthy(url, directory, None)
        return False
    args, env = server_command(config)
    process = _spawn(args, directory, "server", env)
    _wait_until_healthy(url, directory, process)
    return True


def _wait_until_healthy(url: str, directory: Path, process: subprocess.Popen[bytes] | None) -> None:
    """Until the server at `url` answers; a `process` this `up` started that dies or never
    answers is ended, and either way the failure names the server's log."""
    deadline = time.monotonic() + SERVER_START_SECONDS
    while not is_healthy(url):
        if (process is not None and process.poll() is not None) or time.monotonic() > deadline:
            if process is not None:
                end_leftover_processes(directory, grace_seconds=1.0, only=[process.pid])
            raise ThoughtForgeError(
                f"the Prefect server did not answer on {url}; see {directory / 'server.log'}"
            )
        time.sleep(0.1)


def start_worker(
    env: dict[str, str], directory: Path, warm_start: str, name: str | None = None
) -> bool:
    """Start a process worker on the pool, its runs started by the warm starter `warm_start`,
    unless the one recorded in `directory` is alive; `name` is how the pool lists it."""
    if _alive(directory, "worker"):
        return False
    named = ["--name", name] if name else []
    _spawn(
        [prefect_executable(), "worker", "start", "--pool", WORK_POOL, "--type", "process", *named],
        directory,
        "worker",
        {
            **env,
            "PREFECT_WORKER_QUERY_SECONDS": str(WORKER_POLL_SECONDS),
            WARM_START_ENV: warm_start,
        },
    )
    return True


def start_warm_starter(env: dict[str, str], directory: Path) -> str:
    """Start the process that starts flow runs warm (`flows.runtime.warm_start`) unless the one
    recorded in `directory` is alive; its name, which the worker's launchers connect to."""
    name = socket_name(str(directory.resolve()))
    if not _alive(directory, "warm-start"):
        argv = [sys.executable, "-m", "thoughtforge.flows.runtime.warm_start", "--serve", name]
        _spawn(argv, directory, "warm-start", env)
    return name


def wait_for_warm_starter(directory: Path, name: str) -> bool:
    """Wait until the starter takes runs; False if it died or took too long (runs then start
    cold). Returning before it is ready would give the first run a cold start, or the cores
    the starter's imports still use: 4 s to the first question instead of 2."""
    deadline = time.monotonic() + WARM_START_SECONDS
    pid = _recorded(directory, "warm-start")
    while pid is None or not listening(name, pid):
        if not _alive(directory, "warm-start") or time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def start_web(env: dict[str, str], directory: Path, config_file: Path) -> Started:
    """Start the workbench (`thoughtforge web`) unless the one `up` started is alive; it needs no
    server to start, so `up` starts it first and waits for it last (`wait_for_web`)."""
    if _alive(directory, "web"):
        return None
    thoughtforge = str(_thoughtforge_executable())
    return _spawn([thoughtforge, "--config", str(config_file), "web"], directory, "web", env)


def wait_for_web(process: Started, directory: Path, address: str) -> None:
    """Wait until the workbench answers at `address`, so the address `up` prints opens at once."""
    if process is None:
        return
    deadline = time.monotonic() + WEB_START_SECONDS
    while not is_healthy(address.rstrip("/")):
        if process.poll() is not None or time.monotonic() > deadline:
            raise ThoughtForgeError(
                f"the workbench did not start at {address}; see {directory / 'web.log'}"
            )
        time.sleep(0.05)


def _flow_run_of(pid: int) -> str | None:
    """The flow run a process works on: the process worker names it in its environment."""
    try:
        environment = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return None
    for entry in environment:
        name, _, value = entry.partition(b"=")
        if name == b"PREFECT__FLOW_RUN_ID":
            return value.decode(errors="replace")
    return None


class Stopped(BaseModel):
    """What `down` did: the process groups it ended (and what they were), and the flow runs it
    marked cancelled."""

    pids: list[int]
    names: list[str]
    cancelled: list[str]


def stop_all(api_url: str, directory: Path) -> Stopped:
    """Stop what `up` (or `thoughtforge worker`) recorded in `directory`: SIGTERM, then SIGKILL
    after a grace period.

    The worker and the starter go first, with their flow runs, while the server is still there:
    a run holding its process for the person suspends, and can say so. The runs that were working
    are then marked cancelled: killed with their worker, they would show RUNNING (or Crashed) for
    good. Last, the server and the page."""
    in_flight = sorted(
        {run for pid in descendants(live_processes(directory)) if (run := _flow_run_of(pid))}
    )
    runners = [pid for name in ("worker", "warm-start") if (pid := _recorded(directory, name))]
    pids = end_leftover_processes(
        directory, grace_seconds=DOWN_GRACE_SECONDS, only=runners, expected=True
    )
    cancelled = _mark_cancelled(api_url, in_flight)
    pids += end_leftover_processes(directory, grace_seconds=DOWN_GRACE_SECONDS, expected=True)
    names = [what for name, what in STARTED_BY_UP.items() if _recorded(directory, name) in pids]
    for name in STARTED_BY_UP:
        (directory / f"{name}.pid").unlink(missing_ok=True)
    return Stopped(pids=pids, names=names, cancelled=cancelled)


def _mark_cancelled(url: str, flow_run_ids: list[str]) -> list[str]:
    """Nothing when no server answers (a run's own process then finds out on its own)."""
    if not flow_run_ids or not is_healthy(url):
        return []
    try:
        return PrefectApi(url).cancel_runs(flow_run_ids, "stopped by `thoughtforge down`")
    except PrefectApiError:
        return []


def _alive(directory: Path, name: str) -> bool:
    pid = _recorded(directory, name)
    return pid is not None and pid in live_processes(directory)


def _recorded(directory: Path, name: str) -> int | None:
    try:
        return int((directory / f"{name}.pid").read_text())
    except (OSError, ValueError):
        return None


def spawn_logged(argv: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """Start `argv` as the leader of its own session, so a Ctrl-C meant for the command that
    started it does not reach it, with its output appended to `log`."""
    with log.open("ab") as output:
        return subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )


def _spawn(
    argv: list[str], directory: Path, name: str, env: dict[str, str]
) -> subprocess.Popen[bytes]:
    """Start `argv` (`spawn_logged`), logged to `<name>.log`, recorded."""
    process = spawn_logged(argv, directory / f"{name}.log", env)
    track_process(directory, process.pid)
    (directory / f"{name}.pid").write_text(str(process.pid))
    return process


def prefect_executable() -> str:
    """The `prefect` of this environment, whatever is on PATH."""
    return str(Path(sys.executable).with_name("prefect"))


def _thoughtforge_executable() -> Path:
    return Path(sys.executable).with_name("thoughtforge")
