"""Which flow runs beat a heartbeat: a run the CLI starts here and a subflow do not (each would
end up to a second late); a run started as a worker starts it keeps its heartbeat.

Each test reads the setting the engine reads as a run starts, from inside the run."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from prefect import flow
from prefect.settings import get_current_settings

from tests.polish_setup import polishing_project, review, write_script
from thoughtforge.config import load_config
from thoughtforge.flows import pipeline, polish
from thoughtforge.flows.runtime.heartbeats import without_heartbeats
from thoughtforge.models import Phase

pytestmark = pytest.mark.usefixtures("prefect_api_url")

Seen = list[int | None]


def _heartbeat() -> int | None:
    return get_current_settings().flows.heartbeat_frequency


def _spy(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> Seen:
    """Record the heartbeat setting each time `module.name` is called (inside the flow run)."""
    seen: Seen = []
    original: Callable[..., Any] = getattr(module, name)

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(_heartbeat())
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, spy)
    return seen


@pytest.fixture
def project_config(
    tmp_path: Path, cli_config: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> tuple[str, Path]:
    config = cli_config()
    project = polishing_project(load_config(config))
    monkeypatch.setenv("THOUGHTFORGE_SCRIPT", str(write_script(tmp_path / "s.yaml", {1: review()})))
    return project.id, config


def test_a_polish_run_started_here_beats_no_heartbeat(
    project_config: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _spy(monkeypatch, polish, "polish_until_settled")
    assert polish.polish_in_process(*project_config, wait_for_human=False).verdict == "done"
    assert seen == [None]


def test_a_pipeline_run_started_here_beats_no_heartbeat(
    project_config: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _spy(monkeypatch, pipeline, "_dispatch")
    assert pipeline.pipeline_in_process(*project_config, auto_confirm=True) == Phase.DONE.value
    assert seen == [None]


def test_a_run_started_as_a_worker_starts_it_keeps_its_heartbeat(
    project_config: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`python -m prefect.engine` calls the flow itself, outside `without_heartbeats`."""
    seen = _spy(monkeypatch, polish, "polish_until_settled")
    project_id, config = project_config
    assert polish.polish_flow(project_id, str(config)).verdict == "done"
    assert seen == [_heartbeat()] and seen[0] is not None


def test_a_subflow_beats_no_heartbeat_its_parent_keeps_its_own() -> None:
    seen: dict[str, int | None] = {}

    @flow
    def child() -> None:
        seen["child"] = _heartbeat()

    @flow
    def parent() -> None:
        seen["parent"] = _heartbeat()
        with without_heartbeats():
            child()

    parent()
    assert seen == {"parent": _heartbeat(), "child": None} and seen["parent"] is not None
