"""`thoughtforge run-deployment` against a real Prefect server: the run it starts carries the
parameters as `prefect deployment run` would send them (a `@FILE` read here and sent as its
text, the project's tag added), and each way it cannot start a run is one clear line. Its use
from a tool install, where no `prefect` command exists, is `tests/stack/test_installed.py`'s."""

from __future__ import annotations

import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from thoughtforge.stack.api import PrefectApi, project_tag

# Whole flows and CLI processes, minutes in all: CI runs them in its slow suite.
pytestmark = pytest.mark.slow


def _tf(config: Path, *args: str, api: str | None) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(config.parent), "COLUMNS": "200"}
    env["PYTHONPATH"] = str(REPO_ROOT)
    if api is not None:
        env["PREFECT_API_URL"] = api
    return subprocess.run(
        [sys.executable, "-m", "thoughtforge", "--config", str(config), *args],
        cwd=config.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_run_starts_with_the_parameters_given(
    prefect_api_url: str, write_config: Callable[..., Path], tmp_path: Path
) -> None:
    api = PrefectApi(prefect_api_url)
    flow_name = f"tf-test-{uuid.uuid4().hex[:8]}"
    flow = api.call("POST", "/flows/", {"name": flow_name})
    api.call("POST", "/deployments/", {"name": "local", "flow_id": flow["id"]})
    (tmp_path / "dump.md").write_text("the brain dump")
    config = write_config()
    started = _tf(
        config,
        "run-deployment",
        f"{flow_name}/local",
        *("-p", "brain_dump=@dump.md", "-p", "project_id=20261128-x-abcd"),
        *("-p", "auto_confirm=true", "-p", "change_request=Add a rain plan"),
        api=prefect_api_url,
    )
    assert started.returncode == 0, started.stderr
    run_id = started.stdout.strip().rsplit("/runs/flow-run/", 1)[1]
    assert started.stdout.startswith("Started ") and f"of {flow_name}/local: " in started.stdout
    run = api.call("GET", f"/flow_runs/{run_id}")
    assert run["parameters"] == {
        "brain_dump": "the brain dump",
        "project_id": "20261128-x-abcd",
        "auto_confirm": True,
        "change_request": "Add a rain plan",
    }
    assert project_tag("20261128-x-abcd") in run["tags"]


def test_a_missing_deployment_a_bad_parameter_and_no_server_are_one_line_each(
    prefect_api_url: str, write_config: Callable[..., Path], tmp_path: Path
) -> None:
    config = write_config(server={"port": 9})  # nothing answers there
    missing = _tf(config, "run-deployment", "no-such-flow/local", api=prefect_api_url)
    assert missing.returncode == 1
    assert "no deployment 'no-such-flow/local'" in missing.stderr
    assert "thoughtforge up" in missing.stderr and "Traceback" not in missing.stderr
    bad = _tf(config, "run-deployment", "x/local", "-p", "brain_dump", api=prefect_api_url)
    assert bad.returncode == 1 and "give a parameter as KEY=VALUE" in bad.stderr
    unread = _tf(config, "run-deployment", "x/local", "-p", "brain_dump=@nosuch.md", api=None)
    assert unread.returncode == 1 and "Started" not in unread.stdout
    assert "-p brain_dump=@nosuch.md: no such file in" in unread.stderr
    alone = _tf(config, "run-deployment", "thoughtforge-pipeline/local", api=None)
    assert alone.returncode == 1
    assert "no Prefect server answers: start one with `thoughtforge up`" in alone.stderr


def test_a_thoughtforge_flows_parameters_are_checked_before_anything_starts(
    write_config: Callable[..., Path], tmp_path: Path
) -> None:
    """Before: a deliverable type the page and MCP refuse made a project, and an unknown
    parameter printed "Started" and crashed in the worker. Refused here with no server at all:
    the check comes first."""
    config = write_config()
    pipeline = ("run-deployment", "thoughtforge-pipeline/local", "-p", "brain_dump=a wedding")
    for extra, named in (
        ("deliverable_type=$(touch /tmp/x)", "deliverable_type"),
        ("deliverable_type=poem", "no deliverable type 'poem'"),
        ("colour=blue", "colour"),
        ('auto_confirm="yes"', "auto_confirm"),
        ("agent=nobody", "nobody"),
        ('connector_urls=["file:///etc/passwd"]', "connector_urls"),
        ("project_id=20261128-x-abcd", "no project '20261128-x-abcd'"),
    ):
        refused = _tf(config, *pipeline, "-p", extra, api=None)
        assert refused.returncode == 1, (extra, refused.stdout)
        [line] = [line for line in refused.stderr.splitlines() if line.startswith("error:")]
        assert named in line and "Prefect" not in line, (extra, refused.stderr)
    polish = _tf(config, "run-deployment", "thoughtforge-polish/local", api=None)
    assert polish.returncode == 1 and "project_id" in polish.stderr
    assert not (tmp_path / "projects").exists() or not any((tmp_path / "projects").iterdir())
