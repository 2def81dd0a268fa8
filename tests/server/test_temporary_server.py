"""The server a command starts when none runs (its normal life, and a Ctrl-C, are in
`tests/flows/test_pipeline.py`): one that cannot start is reported with where its output went,
and is not taken for the process's server."""

from __future__ import annotations

from pathlib import Path

import pytest

from thoughtforge.config import Config
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.server import temporary_server


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
