"""Flow runs started from a warm process: the launcher the worker runs, and the starter it asks.

A real starter process (it imports Prefect and the flows once) and real launchers; the flow run
they start is Prefect's engine, here given a run id it cannot load, or an API that never answers
(so the run stays alive as long as a test needs it).
"""

from __future__ import annotations

import os
import shlex
import signal
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.flows.test_polish_flow import _wait_for
from thoughtforge.flows.runtime import run_tags
from thoughtforge.process_tree import descendants
from thoughtforge.stack.local_server import wait_for_warm_starter
from thoughtforge.stack.warm_start_address import listening, socket_name

LAUNCHER = [sys.executable, "-m", "thoughtforge.flows.runtime.warm_start"]
Starter = tuple[str, subprocess.Popen[bytes]]


@pytest.fixture(scope="module")
def starter(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    name = socket_name(str(tmp_path_factory.mktemp("warm")))
    process = subprocess.Popen([*LAUNCHER, "--serve", name], start_new_session=True)
    _wait_for(lambda: listening(name, process.pid), "the starter to listen")
    yield name, process
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()


@pytest.fixture
def silent_api() -> Iterator[str]:
    """An address that takes connections and never answers: a run asking it waits."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/api"


def _launch(name: str, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*LAUNCHER, name],
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_the_run_writes_to_the_launchers_streams_and_its_status_is_the_launchers(
    starter: Starter,
) -> None:
    name, _ = starter
    launched = _launch(name, PREFECT__FLOW_RUN_ID="not-a-run-id")
    _, stderr = launched.communicate(timeout=60)
    assert launched.returncode == 1
    assert "Invalid flow run id" in stderr
    assert "RuntimeWarning" not in stderr, "the engine runs afresh, as `python -m` runs it"


def test_without_a_starter_the_launcher_is_prefects_engine_itself(tmp_path: Path) -> None:
    launched = _launch(socket_name(str(tmp_path)), PREFECT__FLOW_RUN_ID="not-a-run-id")
    _, stderr = launched.communicate(timeout=120)
    assert launched.returncode == 1
    assert "Invalid flow run id" in stderr


def _runs_prefect(pid: int) -> bool:
    """Whether the process has loaded Prefect (its pydantic-core library): the launcher, which
    imports only the standard library, has not, until it runs the engine itself."""
    return "_pydantic_core" in Path(f"/proc/{pid}/maps").read_text()


def _run_of(starter: subprocess.Popen[bytes]) -> int:
    _wait_for(lambda: len(descendants([starter.pid])) == 1, "the starter to fork the run")
    [run] = descendants([starter.pid])
    return run


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_a_stopped_or_killed_launcher_takes_its_run_with_it(
    starter: Starter, silent_api: str, sig: signal.Signals
) -> None:
    """SIGTERM is what the worker sends to cancel a run; after SIGKILL the launcher can forward
    nothing, and the starter stops the run when the launcher's connection closes."""
    name, process = starter
    launched = _launch(name, PREFECT__FLOW_RUN_ID=str(uuid.uuid4()), PREFECT_API_URL=silent_api)
    run = _run_of(process)
    launched.send_signal(sig)
    launched.communicate(timeout=60)
    _wait_for(lambda: run not in descendants([process.pid]), "the run to end with its launcher")


def test_the_worker_is_told_to_run_the_launcher_with_this_environments_python() -> None:
    """The same command whichever name of the environment's Python `up` ran under (a console
    script runs `python3`): else every other `up` would deploy everything again."""
    asked = "from thoughtforge.flows.runtime.warm_start import launcher_command as c; print(c('x'))"
    bin_dir = Path(sys.executable).parent
    commands = {
        subprocess.run(
            [str(bin_dir / name), "-c", asked], capture_output=True, text=True, check=True
        ).stdout.strip()
        for name in ("python", "python3")
    }
    [command] = commands
    assert command.split() == [
        str(bin_dir / "python"),
        "-m",
        "thoughtforge.flows.runtime.warm_start",
        "x",
    ]


def test_a_python_in_a_folder_with_a_space_is_one_word_of_the_workers_command(
    tmp_path: Path,
) -> None:
    """Before, the worker ran `/tmp/my` for an environment in `/tmp/my envs/`: every deployed
    run of a clone in a folder with a space crashed before it started."""
    python = tmp_path / "my envs" / "python"
    python.parent.mkdir()
    python.symlink_to(sys.executable)
    asked = "from thoughtforge.flows.runtime.warm_start import launcher_command as c; print(c('x'))"
    root = Path(__file__).resolve().parents[3]
    command = subprocess.run(
        [str(python), "-c", asked],
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert shlex.split(command) == [str(python), "-m", "thoughtforge.flows.runtime.warm_start", "x"]


def test_once_thoughtforges_code_changed_runs_start_cold_not_from_old_code(
    tmp_path: Path, silent_api: str
) -> None:
    """Before, a starter kept forking the code it loaded at `up`, whatever was edited since."""
    name = socket_name(str(tmp_path))
    process = subprocess.Popen([*LAUNCHER, "--serve", name], start_new_session=True)
    module = Path(run_tags.__file__)  # any module the starter loaded
    loaded = module.stat()
    try:
        _wait_for(lambda: listening(name, process.pid), "the starter to listen")
        os.utime(module, ns=(loaded.st_atime_ns, loaded.st_mtime_ns + 1_000_000_000))
        launched = _launch(name, PREFECT__FLOW_RUN_ID=str(uuid.uuid4()), PREFECT_API_URL=silent_api)
        _wait_for(
            lambda: _runs_prefect(launched.pid) or bool(descendants([process.pid])),
            "the launcher to become the engine itself, or the starter to fork the run",
        )
        assert descendants([process.pid]) == [], "the starter forked its old code"
        launched.kill()
        launched.communicate(timeout=60)
    finally:
        os.utime(module, ns=(loaded.st_atime_ns, loaded.st_mtime_ns))
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def test_the_starter_named_by_the_workers_environment_starts_the_run(
    starter: Starter, silent_api: str, tmp_path: Path
) -> None:
    """Each worker names its own starter: the deployment's name is only the fallback."""
    name, process = starter
    launched = _launch(
        socket_name(str(tmp_path)),
        THOUGHTFORGE_WARM_START=name,
        PREFECT__FLOW_RUN_ID=str(uuid.uuid4()),
        PREFECT_API_URL=silent_api,
    )
    run = _run_of(process)
    launched.send_signal(signal.SIGTERM)
    launched.communicate(timeout=60)
    _wait_for(lambda: run not in descendants([process.pid]), "the run to end with its launcher")


AS_NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
SQUATTER = """
import socket, sys
listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
listener.bind("\\0" + sys.argv[1])
listener.listen(4)
print("listening", flush=True)
connection, _ = listener.accept()
print("received", connection.recv(1 << 20), flush=True)
"""


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to listen as another user")
def test_a_socket_another_user_listens_on_is_never_handed_the_runs_environment(
    tmp_path: Path,
) -> None:
    """Anyone can bind an abstract name first: the launcher must not give that process its
    environment (API keys) and streams, but start the run itself."""
    name = socket_name(str(tmp_path))
    squatter = subprocess.Popen(
        [*AS_NOBODY, sys.executable, "-c", SQUATTER, name],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert squatter.stdout is not None
    assert squatter.stdout.readline().strip() == "listening"
    try:
        launched = _launch(name, PREFECT__FLOW_RUN_ID="not-a-run-id", SECRET_TOKEN="s3cret")
        _, stderr = launched.communicate(timeout=120)
        assert "Invalid flow run id" in stderr, "the launcher started the run as Prefect's engine"
    finally:
        squatter.kill()
        received, _ = squatter.communicate(timeout=10)
    assert "s3cret" not in received
    assert received.strip() in ("", "received b''"), received[:200]


def test_listening_names_only_the_starter_that_has_bound_its_name(starter: Starter) -> None:
    name, process = starter
    assert listening(name, process.pid)
    assert not listening(name + "0", process.pid) and not listening(name[:-1], process.pid)
    assert not listening(name, os.getpid())  # bound, but by another process: not this starter


def test_waiting_for_a_starter_that_is_not_running_gives_up_at_once(tmp_path: Path) -> None:
    """`up` then warns that runs start cold, instead of waiting out the deadline."""
    assert wait_for_warm_starter(tmp_path, socket_name(str(tmp_path))) is False
