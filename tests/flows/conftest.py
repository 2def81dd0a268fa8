from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from prefect import get_client
from prefect.client.schemas.filters import ArtifactCollectionFilter, ArtifactCollectionFilterKey
from prefect.client.schemas.objects import ArtifactCollection as Artifact

from tests.conftest import REPO_ROOT, config_data
from thoughtforge.catalogue import RunAnswer
from thoughtforge.stack.api import PrefectApi, WaitingRun


@pytest.fixture
def cli_env(tmp_path: Path, prefect_api_url: str) -> dict[str, str]:
    return {
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "PREFECT_HOME": str(tmp_path / ".prefect"),
        "PREFECT_API_URL": prefect_api_url,
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "COLUMNS": "200",
        "PYTHONPATH": str(REPO_ROOT),  # this checkout's code, not an installed copy's
    }


@pytest.fixture
def cli_config(tmp_path: Path) -> Callable[..., Path]:
    def write(**sections: object) -> Path:
        path = tmp_path / "config.yaml"
        path.write_text(yaml.safe_dump(config_data(tmp_path, **sections)))
        return path

    return write


CLI = [sys.executable, "-m", "thoughtforge"]


def run_cli(
    env: dict[str, str], config: Path, *args: str, **extra_env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, "--config", str(config), *args],
        env={**env, **extra_env},
        capture_output=True,
        text=True,
        timeout=300,
    )


def start_cli(
    env: dict[str, str], config: Path, *args: str, **extra_env: str
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*CLI, "--config", str(config), *args],
        env={**os.environ, **env, **extra_env},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def waiting_run(api_url: str, project_id: str) -> WaitingRun | None:
    """The project's paused or suspended run, as the CLI's replies find it."""
    return PrefectApi(api_url).waiting_run(project_id)


def send_input(api_url: str, project_id: str, run_input: dict[str, str]) -> None:
    """Resume the project's waiting run, as the CLI's replies do. Unchecked here, so a test can
    send what no door would (an action the run's form refuses)."""
    api = PrefectApi(api_url)
    run = api.waiting_run(project_id)
    assert run is not None, f"no run of {project_id} waits"
    api.resume(run, RunAnswer.model_construct(**run_input))  # type: ignore[arg-type]


def project_artifacts(project_id: str) -> dict[str, Artifact]:
    """The latest version of each artifact the project's runs published, by key. Filtered on
    the server: a page of everyone's latest artifacts (the session's server is shared) may not
    hold this project's."""
    keys = ArtifactCollectionFilter(key=ArtifactCollectionFilterKey(like_=project_id))
    with get_client(sync_client=True) as client:
        return {a.key: a for a in client.read_latest_artifacts(artifact_filter=keys) if a.key}
