"""`thoughtforge up` and `down` where they cannot do their job."""

from __future__ import annotations

import shlex
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.conftest import config_data
from thoughtforge.cli.deployment_run import start_command

BIN = Path(sys.executable).parent


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A port held by something that is not a Prefect server."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


def _tf(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(tmp_path), "COLUMNS": "200"}
    return subprocess.run(
        [str(BIN / "thoughtforge"), "--config", str(tmp_path / "config.yaml"), *args],
        env={**env, "PREFECT_HOME": str(tmp_path / ".prefect")},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_up_on_a_port_held_by_another_program_starts_nothing_and_names_the_way_out(
    tmp_path: Path, busy_port: int
) -> None:
    """Before, `up` started the workbench and the warm starter, then the server, which failed on
    the port; now it starts nothing and says how to choose another port without editing the
    config."""
    data = config_data(tmp_path, server={"host": "127.0.0.1", "port": busy_port})
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(data))
    result = _tf(tmp_path, "up")
    assert result.returncode == 1
    assert "Prefect server at" not in result.stdout  # refused before any stage began
    message = result.stderr.replace("\n", "")
    assert "`up` started nothing" in message, result.stderr
    assert f"port {busy_port} (127.0.0.1) is taken by another program" in message
    assert "`up --port N`" in message
    state = tmp_path / ".thoughtforge"
    assert not (state / ".processes.json").exists()
    assert not list(state.glob("*.log")), "a process was started"


def test_up_on_a_taken_web_port_names_it_and_its_flag(tmp_path: Path, busy_port: int) -> None:
    data = config_data(tmp_path, server={"host": "127.0.0.1", "port": _free_port()})
    data["web"] = {"port": busy_port}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(data))
    result = _tf(tmp_path, "up")
    message = result.stderr.replace("\n", "")
    assert result.returncode == 1 and "`up` started nothing" in message, result.stderr
    assert f"port {busy_port} (127.0.0.1) is taken" in message and "`up --web-port N`" in message


def test_up_port_flags_are_checked_and_kept_only_when_up_succeeds(
    tmp_path: Path, busy_port: int
) -> None:
    """`--port` is what `up` checks (not the config's port); a refused `up` records nothing."""
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config_data(tmp_path)))
    result = _tf(tmp_path, "up", "--port", str(busy_port))
    assert result.returncode == 1
    assert f"port {busy_port} (127.0.0.1) is taken" in result.stderr.replace("\n", "")
    assert not (tmp_path / ".thoughtforge" / "ports.json").exists()
    assert _tf(tmp_path, "up", "--port", "0").returncode == 2  # not a port: refused by the CLI


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_down_with_nothing_up_says_so_and_succeeds(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config_data(tmp_path)))
    result = _tf(tmp_path, "down")
    assert result.returncode == 0
    assert "Nothing to stop" in result.stderr


def test_up_warns_of_a_missing_default_agent_and_an_open_server_and_goes_on(
    tmp_path: Path, busy_port: int
) -> None:
    """Before, `up` said nothing: the first project failed at its first agent call, and a server
    on every interface got no word. Here `up` goes on to its checks before starting anything,
    which refuse the busy port, so nothing is started."""
    data = config_data(tmp_path, server={"host": "0.0.0.0", "port": busy_port})
    data["agents"]["available"]["absent"] = {"command": "no-such-agent-cli"}
    data["agents"]["default"] = "absent"
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(data))
    result = _tf(tmp_path, "up")
    said = result.stderr.replace("\n", " ")
    assert "Default agent 'absent' not found on PATH. Projects will fail at first agent" in said
    assert "Server bound to network interface. No authentication is configured" in said
    assert f"port {busy_port} (0.0.0.0) is taken" in said, "it went on to its checks"


def test_up_says_nothing_of_an_agent_it_can_run_on_loopback(tmp_path: Path, busy_port: int) -> None:
    data = config_data(tmp_path, server={"host": "127.0.0.1", "port": busy_port})
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(data))
    result = _tf(tmp_path, "up")
    assert "warning" not in result.stderr.lower(), result.stderr


def test_worker_with_no_server_says_where_it_looked_and_what_to_run(
    tmp_path: Path, busy_port: int
) -> None:
    data = config_data(tmp_path, server={"host": "127.0.0.1", "port": busy_port})
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(data))
    result = _tf(tmp_path, "worker", "--name", "second")
    assert result.returncode == 1
    said = result.stderr.replace("\n", " ")
    assert f"no Prefect server answers at http://127.0.0.1:{busy_port}/api" in said
    assert "`thoughtforge up`" in said
    assert not (tmp_path / ".thoughtforge" / "workers" / "second" / "worker.pid").exists()


@pytest.mark.parametrize("name", ["../escape", "a/b", ".hidden", "x" * 64])
def test_a_worker_name_that_could_leave_its_records_folder_is_refused(
    tmp_path: Path, name: str
) -> None:
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config_data(tmp_path)))
    result = _tf(tmp_path, "worker", "--name", name)
    assert result.returncode != 0
    assert "use letters, digits" in result.stderr.replace("\n", " ")
    assert not (tmp_path / ".thoughtforge" / "workers").exists()


def test_the_start_command_up_prints_survives_a_space_in_the_path() -> None:
    """Before, a clone in `/tmp/my projects/` printed a line the shell split at the space; and
    it named `prefect`, a command a tool install does not put on PATH."""
    brain_dump = Path("/tmp/my projects/thoughtforge/examples/wedding-plan.md")
    config = Path("/tmp/my projects/config.yaml")
    words = shlex.split(start_command(brain_dump, config))
    assert Path(words[0]).name == "thoughtforge"
    assert words[1:5] == ["--config", str(config), "run-deployment", "thoughtforge-pipeline/local"]
    assert words[5:] == ["-p", f"brain_dump=@{brain_dump}"]
    assert shlex.split(start_command(brain_dump, None))[1] == "run-deployment"


def test_version_names_thoughtforge_and_the_prefect_it_runs_on(tmp_path: Path) -> None:
    from importlib.metadata import version

    result = _tf(tmp_path, "--version")
    assert result.returncode == 0
    assert result.stdout.strip() == (
        f"thoughtforge {version('thoughtforge')} (prefect {version('prefect')})"
    )


def test_a_port_whose_last_server_just_stopped_is_free_to_up() -> None:
    """The connections a stopped server closed first wait in TIME_WAIT on its port; a server
    binds over them (SO_REUSEADDR), so `up`'s check must too: before, `down` then `up` was
    refused with "port … is taken"."""
    from thoughtforge.stack.local_server import _port_taken

    with socket.socket() as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        assert _port_taken("127.0.0.1", port)
        client = socket.create_connection(("127.0.0.1", port))
        served, _ = listener.accept()
        served.close()  # the server's side closes first: its port keeps a TIME_WAIT entry
        client.close()
    assert not _port_taken("127.0.0.1", port)


def test_init_writes_the_deployments_beside_the_config_when_asked(tmp_path: Path) -> None:
    from thoughtforge.stack.deployments import PACKAGED

    written = _tf(tmp_path, "init", "--prefect-yaml")
    assert written.returncode == 0, written.stderr
    assert (tmp_path / "config.yaml").exists()
    assert (tmp_path / "prefect.yaml").read_text() == PACKAGED.read_text()
    again = _tf(tmp_path, "init", "--prefect-yaml")
    assert again.returncode == 1 and "prefect.yaml already exists" in again.stderr
    assert _tf(tmp_path, "init", "--prefect-yaml", "--force").returncode == 0
