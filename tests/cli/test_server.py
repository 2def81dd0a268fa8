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
from thoughtforge.cli.server import start_command

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


def test_up_on_a_port_held_by_another_program_fails_naming_its_log(
    tmp_path: Path, busy_port: int
) -> None:
    data = config_data(tmp_path, server={"host": "127.0.0.1", "port": busy_port})
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(data))
    result = _tf(tmp_path, "up")
    assert result.returncode == 1
    assert f"Prefect server at http://127.0.0.1:{busy_port}/api…" in result.stdout  # said first
    message = result.stderr.replace("\n", "")
    assert f"did not start on http://127.0.0.1:{busy_port}/api" in message, result.stderr
    log = tmp_path / ".thoughtforge" / "server.log"
    assert str(log) in message and "already in use" in log.read_text()
    assert not (tmp_path / ".thoughtforge" / ".processes.json").exists()  # nothing left running


def test_down_with_nothing_up_says_so_and_succeeds(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config_data(tmp_path)))
    result = _tf(tmp_path, "down")
    assert result.returncode == 0
    assert "Nothing to stop" in result.stderr


def test_up_warns_of_a_missing_default_agent_and_an_open_server_and_goes_on(
    tmp_path: Path, busy_port: int
) -> None:
    """Before, `up` said nothing: the first project failed at its first agent call, and a server
    on every interface got no word. Here the run goes on to the server start (which then fails
    on the busy port, so no server is left running)."""
    data = config_data(tmp_path, server={"host": "0.0.0.0", "port": busy_port})
    data["agents"]["available"]["absent"] = {"command": "no-such-agent-cli"}
    data["agents"]["default"] = "absent"
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(data))
    result = _tf(tmp_path, "up")
    said = result.stderr.replace("\n", " ")
    assert "Default agent 'absent' not found on PATH. Projects will fail at first agent" in said
    assert "Server bound to network interface. No authentication is configured" in said
    assert f"did not start on http://0.0.0.0:{busy_port}/api" in said, "it went on to start"


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
    """Before, a clone in `/tmp/my projects/` printed a line the shell split at the space."""
    brain_dump = Path("/tmp/my projects/thoughtforge/examples/wedding-plan.md")
    words = shlex.split(start_command(brain_dump))
    assert words[:4] == ["prefect", "deployment", "run", "thoughtforge-pipeline/local"]
    assert words[4:] == ["-p", f"brain_dump=@{brain_dump}"]
