"""`up` that fails half-way leaves nothing of its own running.

Before, a stage failing after the server and the worker had started (the deployments, in a tool
install) returned with both still running, and the next `up` reused them unseen."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.stack.conftest import Stack
from thoughtforge.config import state_dir
from thoughtforge.core.processes import live_processes
from thoughtforge.stack.deployments import PACKAGED

pytestmark = pytest.mark.slow


def test_a_stage_that_fails_after_the_server_started_stops_what_up_started(
    tmp_path: Path,
) -> None:
    stack = Stack(tmp_path)
    data = yaml.safe_load(PACKAGED.read_text())
    data["deployments"][0]["entrypoint"] = "thoughtforge.flows.pipeline.no_such_flow"
    (tmp_path / "prefect.yaml").write_text(yaml.safe_dump(data))  # beside the config: used
    result = stack.tf("up")
    said = result.stderr.replace("\n", " ")
    assert result.returncode == 1, result.stdout
    assert "thoughtforge.flows.pipeline.no_such_flow cannot be deployed" in said, said
    assert "`up` stopped what it had started" in said
    assert "Prefect server started" in result.stdout, "the failure came after the server"
    records = state_dir(stack.config)
    assert live_processes(records) == [], "a process `up` started is still running"
    assert not list(records.glob("*.pid"))
    assert "Nothing to stop" in stack.tf("down").stderr
