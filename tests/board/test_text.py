"""The terminal board: a golden rendering of every kind of card, and how it fits narrow consoles."""

from __future__ import annotations

from datetime import UTC, datetime
from io import StringIO
from pathlib import Path

from rich.console import Console

from thoughtforge.board.cards import COLUMNS, Badge, Card, sparkline
from thoughtforge.board.text import SPARK_VALUES, render_board
from thoughtforge.models import Counts, DeliverableType, HaltReason, Phase

GOLDEN = Path(__file__).parents[1] / "golden" / "board.txt"


def _at(hour: int) -> datetime:
    return datetime(2026, 11, 23, hour, tzinfo=UTC)


CARDS = [
    Card(
        project_id="20261123-wedding-plan-ab12",
        name="Wedding Plan",
        column=Phase.POLISHING,
        agent="claude",
        deliverable_type=DeliverableType.PLAN,
        updated_at=_at(9),
        iteration=5,
        trajectory=[14, 9, 6, 3, 1],
        counts=Counts(critical=0, medium=0, minor=1),
    ),
    Card(
        project_id="20261120-todo-cli-0f3e",
        name="Todo CLI",
        column=Phase.BUILDING,
        badge=Badge.HALTED,
        halt_reason=HaltReason.AGENT_FAILURE,
        agent="codex",
        deliverable_type=DeliverableType.CODE,
        updated_at=_at(8),
    ),
    Card(
        project_id="20261118-garden-77aa",
        name="Garden Redesign",
        column=Phase.HUMAN_REVIEW,
        badge=Badge.TERMINATED,
        halt_reason=HaltReason.HUMAN_TERMINATED,
        agent="gemini",
        updated_at=_at(7),
    ),
    Card(
        project_id="20261122-broken-1234",
        name="20261122-broken-1234",
        column=Phase.BRAIN_DUMP,
        badge=Badge.UNREADABLE,
        problem="status.json: is not valid JSON",
    ),
    Card(
        project_id="20261123-novel-9c9c",
        name="Novel Outline",
        column=Phase.DISTILLING,
        agent="claude",
        updated_at=_at(6),
    ),
    Card(
        project_id="20261123-poems-5e5e",
        name="Poems",
        column=Phase.DISTILLING,
        agent="claude",
        updated_at=_at(10),
    ),
    Card(
        project_id="20261101-budget-aaaa",
        name="Budget",
        column=Phase.DONE,
        agent="claude",
        deliverable_type=DeliverableType.PLAN,
        updated_at=_at(5),
        iteration=3,
        trajectory=[5, 2, 0],
        counts=Counts(),
    ),
]


def _printed(cards: list[Card], width: int) -> str:
    console = Console(file=StringIO(), width=width, color_system=None, force_terminal=False)
    console.print(render_board(cards))
    return console.file.getvalue()  # type: ignore[attr-defined]


def test_the_board_matches_its_golden_file() -> None:
    """Each badge, a polishing card's sparkline and counts, and an empty Spec Building column."""
    assert _printed(CARDS, width=200) == GOLDEN.read_text()


def test_a_narrow_console_gets_balanced_bands_of_whole_columns() -> None:
    printed = _printed(CARDS, width=80)
    assert max(len(line) for line in printed.splitlines()) <= 80
    titles = [t for t in COLUMNS.values() if t in printed]
    assert titles == list(COLUMNS.values())
    assert [printed.index(t) for t in titles] == sorted(printed.index(t) for t in titles)
    assert printed.count("╭") == 3  # 3 + 3 + 1 columns: 80 characters hold three
    assert "Todo CLI" in printed and "HALTED agent_failure" in printed


def test_a_long_polish_shows_the_latest_iterations_in_its_sparkline() -> None:
    trajectory = [30 - i for i in range(30)]
    card = CARDS[0].model_copy(update={"iteration": 30, "trajectory": trajectory})
    printed = _printed([card], width=200)
    assert f"{sparkline(trajectory[-SPARK_VALUES:])} iteration 30" in printed
    assert sparkline(trajectory[-SPARK_VALUES - 1 :]) not in printed
