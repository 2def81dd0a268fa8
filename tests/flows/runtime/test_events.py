"""Whole runs, announced: the real Vibe Kanban card moves with the project, and every transition
reaches the notification channels; with both services down the run still finishes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.capture_server import CaptureServer, refused_url
from tests.conftest import REPO_ROOT
from tests.flows.conftest import run_cli
from tests.polish_setup import polishing_project, review, write_script
from tests.vibe_kanban import VibeKanban
from thoughtforge.config import load_config
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import read_events
from thoughtforge.core.state import read_status
from thoughtforge.models import HaltReason, Phase

EXAMPLE = REPO_ROOT / "examples" / "wedding-plan.md"
pytestmark = pytest.mark.slow  # three whole runs (about 35 s): CI runs them with -m slow


def announced(board_url: str, channels_url: str, board_name: str) -> dict[str, Any]:
    return {
        "vibekanban": {"enabled": True, "url": board_url, "project_name": board_name},
        "notifications": {
            "enabled": True,
            "channels": [
                {"type": "ntfy", "url": channels_url, "topic": "thoughtforge"},
                {"type": "webhook", "url": f"{channels_url}/hooks/s3cr3t", "token": "tk-hidden"},
            ],
        },
    }


def only_project(config: Path) -> Project:
    projects = sorted(p for p in (config.parent / "projects").iterdir() if p.is_dir())
    assert len(projects) == 1
    return Project(id=projects[0].name, dir=projects[0])


def events(project: Project, name: str) -> list[dict[str, Any]]:
    return [e for e in read_events(project.dir) if e["event"] == name]


@pytest.fixture
def board_and_bell(
    tmp_path: Path,
    cli_config: Callable[..., Path],
    vibe_kanban: VibeKanban,
    channels: CaptureServer,
) -> Path:
    """A config with the real board (a board of this test's own) and both channels on."""
    return cli_config(**announced(vibe_kanban.url, channels.url, tmp_path.name))


def test_a_run_moves_its_card_through_the_columns_and_notifies_every_transition(
    tmp_path: Path,
    cli_env: dict[str, str],
    board_and_bell: Path,
    vibe_kanban: VibeKanban,
    channels: CaptureServer,
) -> None:
    config = board_and_bell
    result = run_cli(cli_env, config, "run", str(EXAMPLE), "--auto-confirm")
    assert result.returncode == 0, result.stderr
    project = only_project(config)
    status = read_status(project.dir)
    assert status.phase is Phase.DONE

    moves = [e["status"] for e in events(project, "card_updated")]
    columns = [m for i, m in enumerate(moves) if i == 0 or m != moves[i - 1]]
    assert columns == ["todo", "inprogress", "inreview", "inprogress", "done"]
    [card] = vibe_kanban.cards(tmp_path.name)
    assert (card["status"], card["title"]) == ("done", f"{status.project_name} · Done")
    assert "**Polish iteration:**" in card["description"]

    transitions = events(project, "phase_transition")
    webhook = [r for r in channels.requests if r.path == "/hooks/s3cr3t"]
    ntfy = [r for r in channels.requests if r.path == "/thoughtforge"]
    assert [r.json()["phase"] for r in webhook] == [t["to_phase"] for t in transitions]
    assert [r.body.decode() for r in ntfy] == [t["summary"] for t in transitions]
    summaries = [r.json()["summary"] for r in webhook]
    name = status.project_name
    assert f"Project '{name}' — Phase 1 complete. Intent locked." in summaries
    assert (
        f"Project '{name}' — Phase 2 complete. Spec and constraints locked. Build starting."
        in summaries
    )
    assert (
        f"Project '{name}' — Phase 3 complete. Deliverable built. Polish loop starting."
        in summaries
    )
    assert webhook[-1].json()["event_type"] == "convergence_success"
    assert all(r.headers["Authorization"] == "Bearer tk-hidden" for r in webhook)
    assert events(project, "hook_failed") == []
    assert "tk-hidden" not in (project.dir / "thoughtforge.log").read_text()


def test_a_guard_halt_badges_the_card_and_terminate_cancels_it(
    tmp_path: Path,
    cli_env: dict[str, str],
    board_and_bell: Path,
    vibe_kanban: VibeKanban,
    channels: CaptureServer,
) -> None:
    config = board_and_bell
    project = polishing_project(load_config(config))
    script = write_script(
        tmp_path / "s.yaml",
        {
            1: review(10, 20, 10),
            2: review(5, 15, 10),
            3: review(2, 10, 8),
            4: review(5, 10, 10),
        },
    )
    halted = run_cli(cli_env, config, "polish", project.id, THOUGHTFORGE_SCRIPT=str(script))
    assert halted.returncode == 3, halted.stderr
    [card] = vibe_kanban.cards(tmp_path.name)
    assert (card["status"], card["title"]) == ("inprogress", "Wedding · Polishing · HALTED")
    assert "**Halt reason:** guard_hallucination" in card["description"]
    halt = [r.json() for r in channels.requests if r.path == "/hooks/s3cr3t"][-1]
    assert halt["event_type"] == "guard_triggered"
    assert "fix-regress cycle detected" in halt["summary"]

    assert run_cli(cli_env, config, "terminate", project.id).returncode == 0
    [card] = vibe_kanban.cards(tmp_path.name)
    assert (card["status"], card["title"]) == ("cancelled", "Wedding · Polishing · TERMINATED")
    assert read_status(project.dir).halt_reason is HaltReason.HUMAN_TERMINATED


def test_with_the_board_and_the_channels_down_the_run_still_finishes(
    tmp_path: Path, cli_env: dict[str, str], cli_config: Callable[..., Path]
) -> None:
    down = refused_url()
    config = cli_config(**announced(down, down, tmp_path.name))
    result = run_cli(cli_env, config, "run", str(EXAMPLE), "--auto-confirm")
    assert result.returncode == 0, result.stderr
    project = only_project(config)
    assert read_status(project.dir).phase is Phase.DONE
    failures = events(project, "hook_failed")
    transitions = events(project, "phase_transition")
    assert {f["hook"] for f in failures} == {"board", "notification"}
    channels = len(announced(down, down, "")["notifications"]["channels"])
    # each channel has a lane of its own: every one of them fails on its own, each time
    assert sum(f["hook"] == "notification" for f in failures) == channels * len(transitions)
    assert all(f["level"] == "warning" for f in failures)
    assert not any("s3cr3t" in f["error"] or "tk-hidden" in f["error"] for f in failures)
