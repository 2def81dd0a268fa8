from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.browser import launch_browser
from tests.capture_server import CaptureServer
from tests.vibe_kanban import VibeKanban, free_port
from thoughtforge.config import Config, load_config

# Bytecode is written whatever the shell says (PYTHONDONTWRITEBYTECODE): each CLI, agent, flow
# run and project suite a test starts is a new interpreter that would otherwise compile
# ThoughtForge, and have pytest rewrite its plugins' asserts, from source every time.
# (ThoughtForge's own locked run still writes none in the project: it sets the variable itself.)
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

AGENTS_DIR = Path(__file__).parent / "agents"
REPO_ROOT = Path(__file__).parent.parent

BRAIN_DUMP = (
    "Plan a small wedding for 60 guests in the countryside next June. Budget 15k, vegetarian "
    "menu, live music, and a rain plan because the venue is mostly outdoors."
)


def config_data(tmp_path: Path, **sections: Any) -> dict[str, Any]:
    """A complete config: the packaged example, projects in tmp_path, test agents added."""
    data = yaml.safe_load((REPO_ROOT / "config.yaml.example").read_text())
    data["projects"]["directory"] = str(tmp_path / "projects")
    # Port 9 (discard) has no Prefect server: a developer's own `thoughtforge up` on 4200 must
    # not be found by tests that mean to run without one.
    data["server"]["port"] = 9
    data["agents"]["call_timeout_seconds"] = 5
    data["agents"]["available"].update(
        {
            "recorder": {"command": str(AGENTS_DIR / "record_stdin.py")},
            "sleeper": {"command": str(AGENTS_DIR / "sleep_with_child.sh")},
            "flaky": {"command": str(AGENTS_DIR / "fail_then_answer.sh")},
            "escaper": {"command": str(AGENTS_DIR / "escaping_helper.sh")},
            "lingerer": {"command": str(AGENTS_DIR / "answer_then_linger.sh")},
            "flood": {"command": str(AGENTS_DIR / "flood.py")},
            "streamer": {"command": str(AGENTS_DIR / "stream_watcher.py")},
        }
    )
    for name, values in sections.items():
        data.setdefault(name, {}).update(values)
    return data


@pytest.fixture
def write_config(tmp_path: Path) -> Callable[..., Path]:
    def write(**sections: Any) -> Path:
        path = tmp_path / "config.yaml"
        path.write_text(yaml.safe_dump(config_data(tmp_path, **sections)))
        return path

    return write


@pytest.fixture
def config(write_config: Callable[..., Path]) -> Config:
    return load_config(write_config())


@pytest.fixture
def record_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "record"
    path.mkdir()
    monkeypatch.setenv("RECORD_DIR", str(path))
    return path


@pytest.fixture
def browser() -> Iterator[Any]:
    """Headless Chromium (the test skips, saying why, without it)."""
    yield from launch_browser()


@pytest.fixture(scope="session")
def prefect_api_url() -> Iterator[str]:
    """One real Prefect server (SQLite in a temp dir) for every test that needs one."""
    from prefect.settings import PREFECT_API_URL
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=120):
        yield str(PREFECT_API_URL.value())


@pytest.fixture(scope="session")
def vibe_kanban(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VibeKanban]:
    """One real Vibe Kanban for the session; tests keep apart by using boards of their own."""
    server = VibeKanban(tmp_path_factory.mktemp("vibe-kanban"), port=free_port())
    yield server
    server.stop()


@pytest.fixture
def channels() -> Iterator[CaptureServer]:
    """A local HTTP server that records what notification channels send it."""
    with CaptureServer() as server:
        yield server
