"""`thoughtforge board` as a user runs it: a real process over real projects moved by
`transition()`, an unreadable one, and `--serve` started, asked and stopped with Ctrl-C."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Callable
from datetime import UTC, datetime
from itertools import pairwise
from pathlib import Path

import pytest

from thoughtforge.board.cards import COLUMNS, sparkline
from thoughtforge.config import Config, load_config
from thoughtforge.core.creation import create_project
from thoughtforge.core.project import Project
from thoughtforge.core.state import PolishState, TrajectoryEntry, write_polish_state
from thoughtforge.core.transition import transition
from thoughtforge.models import Counts, DeliverableType, HaltReason, Phase

_TO_POLISHING = (Phase.DISTILLING, Phase.HUMAN_REVIEW, Phase.SPEC_BUILDING, Phase.BUILDING)
_NAMES = ("Wedding", "Garden", "Novel", "Broken")


def real_projects(config: Config) -> dict[str, Project]:
    """One project of each kind a board shows, moved there by `transition()`, by name."""
    projects = {name: create_project(config, agent="demo") for name in _NAMES}
    for phase in (*_TO_POLISHING, Phase.POLISHING):
        transition(
            projects["Wedding"],
            phase,
            project_name="Wedding",
            deliverable_type=DeliverableType.PLAN,
        )
    write_polish_state(
        projects["Wedding"].dir,
        PolishState(
            iteration=3,
            counts=Counts(critical=0, medium=1, minor=2),
            trajectory=[_entry(n, total) for n, total in enumerate((9, 5, 3), start=1)],
        ),
    )
    transition(projects["Garden"], Phase.DISTILLING, project_name="Garden")
    transition(projects["Garden"], Phase.HALTED, halt_reason=HaltReason.AGENT_FAILURE)
    for phase in _TO_POLISHING[:2]:
        transition(projects["Novel"], phase, project_name="Novel")
    transition(projects["Novel"], Phase.HALTED, halt_reason=HaltReason.HUMAN_TERMINATED)
    (projects["Broken"].dir / "status.json").write_text('{"phase": "buil')
    return projects


def _entry(iteration: int, total: int) -> TrajectoryEntry:
    return TrajectoryEntry(
        iteration=iteration,
        critical=0,
        medium=total,
        minor=0,
        total=total,
        fix_applied=True,
        timestamp=datetime(2026, 11, 23, tzinfo=UTC),
    )


@pytest.fixture
def config_file(write_config: Callable[..., Path]) -> Path:
    return write_config(concurrency={"max_parallel_runs": 10})


def _board(config_file: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "thoughtforge", "--config", str(config_file), "board", *args],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "HOME": str(config_file.parent), "COLUMNS": "200"},
        timeout=60,
    )


def _column_of(printed: str, text: str) -> str:
    """The title of the column with the one cell line that is exactly `text`, read off the box
    drawing (exact: ids that share a prefix, or a path that holds an id, are other cells)."""
    lines = printed.splitlines()
    header = next(line for line in lines if "Brain Dump (" in line)
    borders = [i for i, char in enumerate(header) if char == "│"]
    spans = list(pairwise(borders))
    [column] = [
        number
        for line in lines
        for number, (start, end) in enumerate(spans)
        if line[start + 1 : end].strip() == text
    ]
    start, end = spans[column]
    return header[start + 1 : end].strip().rsplit(" (", 1)[0]


def test_board_shows_each_project_in_its_column_with_its_badge(
    config_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ids share all but their last character (all four are slugged "project"), as they
    may by chance: each is still found in its own column."""
    suffixes = iter(f"07b{n}" for n in range(10))
    monkeypatch.setattr("thoughtforge.core.creation.secrets.token_hex", lambda _: next(suffixes))
    projects = real_projects(load_config(config_file))
    result = _board(config_file)
    assert result.returncode == 0, result.stderr
    printed = result.stdout
    assert [title for title in COLUMNS.values() if f"{title} (" in printed] == list(
        COLUMNS.values()
    )
    assert _column_of(printed, "Wedding") == "Polishing"
    assert _column_of(printed, "demo · plan") == "Polishing"
    assert _column_of(printed, f"{sparkline([9, 5, 3])} iteration 3") == "Polishing"
    assert _column_of(printed, "0 crit · 1 med · 2 min") == "Polishing"
    assert _column_of(printed, "HALTED agent_failure") == "Distilling"
    assert _column_of(printed, "TERMINATED") == "Human Review"
    assert _column_of(printed, "UNREADABLE") == "Brain Dump"
    for name, column in [
        ("Broken", "Brain Dump"),
        ("Garden", "Distilling"),
        ("Novel", "Human Review"),
    ]:
        assert _column_of(printed, projects[name].id) == column
    assert "Done (0)" in printed and "Spec Building (0)" in printed


def test_board_with_no_projects_says_where_they_live_and_how_to_start(config_file: Path) -> None:
    result = _board(config_file)
    assert result.returncode == 0
    message = result.stdout.replace("\n", "")
    assert f"No projects in {config_file.parent / 'projects'} yet" in message
    assert "thoughtforge new --brain-dump FILE" in message


def test_serve_prints_its_url_answers_and_stops_on_ctrl_c(config_file: Path) -> None:
    real_projects(load_config(config_file))
    command = [sys.executable, "-m", "thoughtforge", "--config", str(config_file), "board"]
    server = subprocess.Popen(
        [*command, "--serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={"PATH": "/usr/bin:/bin", "HOME": str(config_file.parent), "COLUMNS": "200"},
    )
    try:
        assert server.stdout is not None
        first = server.stdout.readline()
        assert first.startswith("Workbench at http://127.0.0.1:") and "Ctrl-C stops it" in first
        url = first.split()[2]
        assert url.endswith("/board")
        with urllib.request.urlopen(url) as response:
            assert "Wedding" in response.read().decode()
        server.send_signal(signal.SIGINT)
        stdout, stderr = server.communicate(timeout=10)
    finally:
        server.kill()
    assert server.returncode == 0, stderr
    assert "Workbench stopped." in stdout and "Traceback" not in stderr


def test_serve_on_a_port_in_use_is_one_clear_line(config_file: Path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        result = _board(config_file, "--serve", "--port", str(port))
    assert result.returncode == 1
    assert result.stderr.strip() == (
        f"error: port {port} on 127.0.0.1 is already in use: stop what holds it, or set web.port "
        "(or --port)"
    )
    assert result.stdout == ""
