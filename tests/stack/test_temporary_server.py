"""The server a command starts when none runs (its normal life, and a Ctrl-C, are in
`tests/flows/test_pipeline.py`): one that cannot start is reported with where its output went,
and is not taken for the process's server."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.process_checks import alive
from thoughtforge.config import Config, load_config
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.stack import temporary_server


def test_a_server_that_cannot_start_is_named_with_its_log(
    tmp_path: Path, config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    not_a_folder = tmp_path / "prefect-home"
    not_a_folder.write_text("a file where Prefect keeps its database")
    monkeypatch.setenv("PREFECT_HOME", str(not_a_folder))
    monkeypatch.setattr(temporary_server, "PORT_ATTEMPTS", 1)
    with pytest.raises(ThoughtForgeError, match="did not start") as refused:
        temporary_server.start_temporary_server(config, tmp_path / "state")
    log = Path(str(refused.value).rsplit("see ", 1)[1])
    assert "unable to open database file" in log.read_text()
    assert temporary_server.temporary_server_pid() is None


def test_a_pinned_port_in_use_is_named_with_its_setting_and_not_swapped_for_another(
    tmp_path: Path, write_config: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path / ".prefect"))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        config = load_config(write_config(server={"temporary_port": port}))
        with pytest.raises(ThoughtForgeError) as refused:
            temporary_server.start_temporary_server(config, tmp_path / "state")
    message = str(refused.value)
    assert (
        f"did not start on port {port} (server.temporary_port, or THOUGHTFORGE_TEMPORARY_PORT)"
        in message
    )
    assert temporary_server.temporary_server_pid() is None


@pytest.mark.slow
@pytest.mark.parametrize("pinned", [False, True])
def test_it_serves_this_machine_only_and_ends_with_the_process_that_started_it(
    tmp_path: Path, write_config: Callable[..., Path], pinned: bool
) -> None:
    """`server.host: 0.0.0.0` is for `up`'s server; a server for one command listens on
    127.0.0.1 (on `server.temporary_port` when set), and the command's exit stops it and
    removes its log."""
    port = temporary_server._free_port() if pinned else None
    config = write_config(server={"host": "0.0.0.0", "port": 4200, "temporary_port": port})
    state = tmp_path / "state"
    script = (
        "from pathlib import Path; from thoughtforge.config import load_config; "
        "from thoughtforge.stack import temporary_server as t; "
        f"config = load_config(Path({str(config)!r})); "
        f"url = t.start_temporary_server(config, Path({str(state)!r})); "
        "print(url, t.temporary_server_pid())"
    )
    env = {**os.environ, "PREFECT_HOME": str(tmp_path / ".prefect"), "PYTHONPATH": str(REPO_ROOT)}
    env.pop("PREFECT_API_URL", None)
    started = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300
    )
    assert started.returncode == 0, started.stderr
    url, pid = started.stdout.split()
    assert url.startswith("http://127.0.0.1:") and url.endswith("/api")
    if port is not None:
        assert url == f"http://127.0.0.1:{port}/api"
    assert not alive(int(pid))
    assert not list(state.glob("*.log"))
