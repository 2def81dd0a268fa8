"""The Vibe Kanban adapter against the real Vibe Kanban 0.0.71 server."""

from __future__ import annotations

import tempfile
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.vibe_kanban import VibeKanban, free_port
from thoughtforge.adapters.announce import board_for
from thoughtforge.adapters.kanban import VibeKanbanBoard, server_url
from thoughtforge.config import Config, VibeKanbanConfig, load_config
from thoughtforge.core.creation import create_project
from thoughtforge.core.hooks import BOARD_CARD_FILE, TransitionHooks, install_hooks
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import read_events
from thoughtforge.core.state import PolishState, TrajectoryEntry, write_polish_state
from thoughtforge.core.transition import transition
from thoughtforge.errors import ServiceError
from thoughtforge.models import Counts, DeliverableType, HaltReason, Phase


@pytest.fixture
def board_name(tmp_path: Path) -> str:
    """A board of this test's own on the shared server."""
    return f"TF {tmp_path.name}"


@pytest.fixture
def settings(vibe_kanban: VibeKanban, board_name: str) -> VibeKanbanConfig:
    return VibeKanbanConfig(enabled=True, url=vibe_kanban.url, project_name=board_name)


@pytest.fixture
def board(settings: VibeKanbanConfig, tmp_path: Path) -> VibeKanbanBoard:
    return VibeKanbanBoard(lambda: settings, tmp_path / "board-repo")


@pytest.fixture
def hooks(board: VibeKanbanBoard) -> Iterator[TransitionHooks]:
    """The board, called directly (not through the courier), installed for creation too."""
    installed = TransitionHooks(board=board)
    previous = install_hooks(installed)
    yield installed
    install_hooks(previous)


@pytest.fixture
def project(config: Config, hooks: TransitionHooks) -> Project:
    return create_project(config)


def only_card(server: VibeKanban, board_name: str) -> dict[str, Any]:
    cards = server.cards(board_name)
    assert len(cards) == 1, [c["title"] for c in cards]
    return cards[0]


def test_a_new_project_gets_a_todo_card_at_creation(
    project: Project,
    vibe_kanban: VibeKanban,
    board_name: str,
) -> None:
    card = only_card(vibe_kanban, board_name)
    assert card["status"] == "todo"
    assert card["title"] == f"{project.id} · Brain Dump"
    assert (project.dir / BOARD_CARD_FILE).exists()


def test_each_transition_moves_the_one_card_and_phase_one_renames_it(
    project: Project,
    vibe_kanban: VibeKanban,
    board_name: str,
) -> None:
    moves: list[tuple[Phase, dict[str, Any], str, str]] = [
        (Phase.DISTILLING, {}, "inprogress", f"{project.id} · Distilling"),
        (Phase.HUMAN_REVIEW, {}, "inreview", f"{project.id} · Human Review"),
        (
            Phase.SPEC_BUILDING,
            {"project_name": "Wedding Plan", "deliverable_type": DeliverableType.PLAN},
            "inreview",
            "Wedding Plan · Spec Building",
        ),
        (Phase.BUILDING, {}, "inprogress", "Wedding Plan · Building"),
        (Phase.POLISHING, {}, "inprogress", "Wedding Plan · Polishing"),
        (Phase.DONE, {}, "done", "Wedding Plan · Done"),
    ]
    for phase, extra, status, title in moves:
        transition(project, phase, **extra)
        card = only_card(vibe_kanban, board_name)
        assert (card["status"], card["title"]) == (status, title)
    assert "**Deliverable:** plan" in card["description"]
    assert "**Agent:** demo" in card["description"]


def test_a_halt_keeps_the_column_with_a_badge_and_terminate_cancels(
    project: Project,
    vibe_kanban: VibeKanban,
    board_name: str,
) -> None:
    transition(project, Phase.DISTILLING)
    transition(project, Phase.HALTED, halt_reason=HaltReason.AGENT_FAILURE)
    card = only_card(vibe_kanban, board_name)
    assert card["status"] == "inprogress"
    assert card["title"] == f"{project.id} · Distilling · HALTED"
    assert "**Halt reason:** agent_failure" in card["description"]

    transition(project, Phase.HALTED, halt_reason=HaltReason.HUMAN_TERMINATED)
    card = only_card(vibe_kanban, board_name)
    assert card["status"] == "cancelled"
    assert card["title"] == f"{project.id} · Distilling · TERMINATED"


def test_a_polishing_card_shows_iteration_trajectory_and_last_counts(
    project: Project,
    vibe_kanban: VibeKanban,
    board_name: str,
) -> None:
    now = datetime.now(UTC)
    trajectory = [
        TrajectoryEntry(
            iteration=n, critical=c, medium=m, minor=0, total=c + m, fix_applied=True, timestamp=now
        )
        for n, (c, m) in enumerate([(3, 9), (1, 6), (0, 2)], start=1)
    ]
    write_polish_state(
        project.dir,
        PolishState(iteration=3, counts=Counts(critical=0, medium=2), trajectory=trajectory),
    )
    transition(project, Phase.DISTILLING)
    description = only_card(vibe_kanban, board_name)["description"]
    assert "**Polish iteration:** 3" in description
    assert "12 → 7 → 2" in description
    assert "**Last counts:** 0 critical, 2 medium, 0 minor" in description


def test_a_card_deleted_by_hand_is_created_again_once(
    project: Project,
    vibe_kanban: VibeKanban,
    board_name: str,
) -> None:
    vibe_kanban.call("DELETE", f"/api/tasks/{only_card(vibe_kanban, board_name)['id']}")
    assert vibe_kanban.cards(board_name) == []
    transition(project, Phase.DISTILLING)
    transition(project, Phase.HUMAN_REVIEW)
    card = only_card(vibe_kanban, board_name)
    assert (card["status"], card["title"]) == ("inreview", f"{project.id} · Human Review")


def test_two_updates_at_once_of_a_new_project_make_one_card(
    config: Config,
    board: VibeKanbanBoard,
    vibe_kanban: VibeKanban,
    board_name: str,
) -> None:
    project = create_project(config)  # no hooks installed: no card yet
    status = project.status()
    threads = [threading.Thread(target=board.sync, args=(project, status)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    only_card(vibe_kanban, board_name)


def test_disabled_makes_no_call(
    config: Config,
    vibe_kanban: VibeKanban,
    board_name: str,
    tmp_path: Path,
) -> None:
    settings = VibeKanbanConfig(enabled=False, url=vibe_kanban.url, project_name=board_name)
    board = VibeKanbanBoard(lambda: settings, tmp_path / "board-repo")
    project = create_project(config)
    transition(project, Phase.DISTILLING, hooks=TransitionHooks(board=board))
    assert board_name not in [b["name"] for b in vibe_kanban.call("GET", "/api/projects")]
    assert not (project.dir / BOARD_CARD_FILE).exists()


def test_enabled_is_read_from_the_config_file_at_each_update(
    write_config: Callable[..., Path],
    vibe_kanban: VibeKanban,
    board_name: str,
) -> None:
    settings = {"url": vibe_kanban.url, "project_name": board_name}
    path = write_config(vibekanban={"enabled": False, **settings})
    config = load_config(path)
    hooks = TransitionHooks(board=board_for(path, config))
    project = create_project(config)
    transition(project, Phase.DISTILLING, hooks=hooks)
    assert vibe_kanban.cards(board_name) == []

    data = yaml.safe_load(path.read_text())
    data["vibekanban"]["enabled"] = True
    path.write_text(yaml.safe_dump(data))
    transition(project, Phase.HUMAN_REVIEW, hooks=hooks)
    assert only_card(vibe_kanban, board_name)["status"] == "inreview"


def test_a_server_that_is_down_is_a_warning_and_the_transition_stands(
    config: Config, tmp_path: Path
) -> None:
    settings = VibeKanbanConfig(enabled=True, url=f"http://127.0.0.1:{free_port()}")
    hooks = TransitionHooks(board=VibeKanbanBoard(lambda: settings, tmp_path / "board-repo"))
    project = create_project(config)
    after = transition(project, Phase.DISTILLING, hooks=hooks)
    assert after.phase is Phase.DISTILLING
    assert project.status().phase is Phase.DISTILLING
    warnings = [e for e in read_events(project.dir) if e["event"] == "hook_failed"]
    assert [w["hook"] for w in warnings] == ["board"]
    assert "Connection refused" in warnings[0]["error"]


def test_without_a_url_the_port_file_finds_the_server(
    vibe_kanban: VibeKanban,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(vibe_kanban.tmp))
    assert server_url(VibeKanbanConfig(enabled=True)) == vibe_kanban.url


def test_without_a_url_or_a_port_file_the_error_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with pytest.raises(ServiceError, match=r"url is not set .* \(is Vibe Kanban running"):
        server_url(VibeKanbanConfig(enabled=True))


def test_summary_reports_the_board_and_its_cards(
    project: Project,
    board: VibeKanbanBoard,
    vibe_kanban: VibeKanban,
) -> None:
    summary = board.summary()
    assert summary.url == vibe_kanban.url
    assert summary.board_id is not None
    assert summary.cards == 1


def test_a_board_deleted_by_hand_is_made_again_with_the_card(
    project: Project,
    vibe_kanban: VibeKanban,
    board_name: str,
) -> None:
    [board] = [b for b in vibe_kanban.call("GET", "/api/projects") if b["name"] == board_name]
    vibe_kanban.call("DELETE", f"/api/projects/{board['id']}")
    transition(project, Phase.DISTILLING)  # the cached board is gone: a warning, then forgotten
    assert vibe_kanban.cards(board_name) == []
    transition(project, Phase.HUMAN_REVIEW)
    card = only_card(vibe_kanban, board_name)
    assert (card["status"], card["title"]) == ("inreview", f"{project.id} · Human Review")
    failures = [e for e in read_events(project.dir) if e["event"] == "hook_failed"]
    assert [f["hook"] for f in failures] == ["board"]


def test_a_late_sync_sends_the_project_as_its_files_are_now(
    project: Project,
    board: VibeKanbanBoard,
    vibe_kanban: VibeKanban,
    board_name: str,
) -> None:
    """The card is the read model's (`board.cards.project_card`): a sync the courier delivers
    after a later phase change shows where the project is, not the status it was handed."""
    handed = transition(project, Phase.DISTILLING)
    transition(project, Phase.HUMAN_REVIEW)
    board.sync(project, handed)
    card = only_card(vibe_kanban, board_name)
    assert (card["status"], card["title"]) == ("inreview", f"{project.id} · Human Review")
