"""The project listing looks exactly as rich's `Table` draws it, and when every cell fits on one
line it is drawn without laying out a `Table` (which takes most of a second for 1,000 rows)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from rich.cells import cell_len
from rich.console import RenderableType
from rich.table import Table

from tests.conftest import BRAIN_DUMP
from tests.consoles import CONSOLES
from tests.core.test_course_claim import held_elsewhere
from thoughtforge.actions.composer import WAITS_FOR
from thoughtforge.cli.status_report import UNNAMED, ProjectTable, project_detail, project_table
from thoughtforge.config import Config
from thoughtforge.core.creation import create_project
from thoughtforge.core.state import PolishState, TrajectoryEntry, write_polish_state
from thoughtforge.core.waiting import ANSWER_VERBS, Waiting, record_wait
from thoughtforge.models import Phase


def _row(*cells: str, styles: dict[int, str] | None = None) -> tuple[tuple[str, str], ...]:
    return tuple((cell, (styles or {}).get(n, "")) for n, cell in enumerate(cells))


ROWS = [
    _row(
        "20261123-wedding-plan-ab12",
        "Wedding Plan",
        "polishing",
        "plan",
        "claude",
        "$1.20 / $5.00",
        "11-23 09:00",
    ),
    _row("20261122-broken-1234", "", "unreadable", "", "", "", "", styles={2: "red"}),
    _row(
        "20261120-todo-cli-0f3e",
        "Todo CLI",
        "halted (agent_failure) in building",
        "code",
        "codex",
        "",
        "11-20 08:00",
        styles={2: "yellow"},
    ),
    _row(
        "20261118-garden-77aa", "婚礼 计划 🎉", "done", "plan", "gemini", "$0.0042", "11-18 07:00"
    ),
    _row("20261117-cafe-0000", "Cafe\u0301  ", "brain_dump", "", "demo", "", "11-17 06:00"),
]
"""Plain and styled cells, empty ones, wide characters, a combining accent, trailing spaces."""

UNRULY = [
    [*ROWS, _row(f"20261116-unruly-{n:04d}", name, "distilling", "", "demo", "", "11-16 05:00")]
    for n, name in enumerate(("Line\nbreak", "Tab\there", "Line\u2028separator"))
]
"""Listings with a name no one line holds: the `Table` draws these."""

ZERO_WIDTH = [_row("20261113-accent-0000", "e\u0301\u0301\u0301\u3000", "done", "", "demo", "", "")]
"""A name of more characters than cells, ending in a wide space that wrapping trims off."""


def _printed(renderable: RenderableType, width: int, console: str = "plain") -> str:
    printer = CONSOLES[console](width)
    printer.print(renderable)
    return printer.file.getvalue()  # type: ignore[attr-defined]


def _natural_width(rows: list[tuple[tuple[str, str], ...]]) -> int:
    """How wide the `Table` of these rows is when nothing makes it wrap."""
    return len(_printed(ProjectTable(rows).table(), width=500).splitlines()[0])


@pytest.mark.parametrize("console", CONSOLES)
@pytest.mark.parametrize(
    "rows",
    [ROWS, *UNRULY, ZERO_WIDTH, []],
    ids=["rows", "line-break", "tab", "line-separator", "zero-width", "none"],
)
def test_the_listing_is_drawn_as_a_rich_table_draws_it(
    rows: list[tuple[tuple[str, str], ...]], console: str
) -> None:
    """At the width it just fits, one less (the name wraps), one more, narrow and wide."""
    natural = _natural_width(rows)
    for width in (natural - 1, natural, natural + 1, 40, 80, 250):
        listing = ProjectTable(rows)
        assert _printed(listing, width, console) == _printed(listing.table(), width, console)


def test_a_listing_that_fits_is_drawn_without_a_table(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object) -> None:
        raise AssertionError("a Table laid out the listing")

    many = [tuple((f"{cell}{n}", style) for cell, style in row) for n in range(50) for row in ROWS]
    expected = _printed(ProjectTable(many).table(), width=200, console="colour")
    monkeypatch.setattr(Table, "__rich_console__", refuse)
    assert _printed(ProjectTable(many), width=200, console="colour") == expected


@pytest.mark.parametrize("width", [80, 100])
def test_at_80_columns_no_cell_is_cut(width: int) -> None:
    """Before, 80 columns cut the type, agent and updated cells to `…` and hid the name."""
    printed = _printed(ProjectTable(ROWS), width)
    assert max(cell_len(line) for line in printed.splitlines()) <= width
    assert "…" not in printed
    flat = " ".join(printed.split())
    for row in ROWS:
        project_id, name, phase, kind, agent, spent, updated = (text.strip() for text, _ in row)
        for whole in (project_id, kind, agent, spent, updated):
            assert whole in flat, whole
        for wrapped in (name, phase):
            assert all(word in flat for word in wrapped.split()), wrapped


def test_a_project_not_yet_named_says_when_it_will_be(config: Config) -> None:
    create_project(config, brain_dump=BRAIN_DUMP)
    table, _ = project_table(config)
    [row] = table.rows
    assert row[1] == (UNNAMED, "dim")


@pytest.mark.parametrize("kind", sorted(ANSWER_VERBS))
def test_status_of_a_waiting_project_says_what_it_waits_for_in_words(
    config: Config, kind: str
) -> None:
    """Before, `status ID` named the wait by its form's class ("(IntakeTurn)")."""
    project = create_project(config, brain_dump=BRAIN_DUMP)
    since = datetime(2026, 11, 28, 3, 50, tzinfo=UTC)
    record_wait(
        project.dir,
        Waiting(key="k", kind=kind, phase=Phase.BRAIN_DUMP, chat_length=1, since=since),
    )
    shown = " ".join(_printed(project_detail(config, project.id), 200).split())
    assert f"waiting for {WAITS_FOR[kind]} since 11-28 03:50:" in shown
    assert f"`thoughtforge {ANSWER_VERBS[kind]} {project.id}`" in shown
    assert kind not in shown


def test_status_shows_what_holds_the_project_and_that_it_clears_itself(config: Config) -> None:
    """Before, a claim left behind refused every command and `status` did not mention it."""
    project = create_project(config, brain_dump="x")
    with held_elsewhere(project, "rollback") as holder:
        console = CONSOLES["plain"](200)
        console.print(project_detail(config, project.id))
        shown = " ".join(console.file.getvalue().split())  # type: ignore[attr-defined]
    assert f"claim: a rollback started by pid {holder.pid} on this machine at" in shown
    assert f"it clears itself when pid {holder.pid} ends (the next command takes it over" in shown
    console = CONSOLES["plain"](200)
    console.print(project_detail(config, project.id))
    assert "claim:" not in console.file.getvalue()  # type: ignore[attr-defined]


def test_status_says_where_the_polish_loop_is_heading(config: Config) -> None:
    project = create_project(config, brain_dump=BRAIN_DUMP)
    at = datetime(2026, 12, 6, tzinfo=UTC)
    trajectory = [
        TrajectoryEntry(
            iteration=n,
            critical=0,
            medium=total,
            minor=0,
            total=total,
            fix_applied=True,
            timestamp=at,
            usd=0.5,
        )
        for n, total in enumerate((7, 5), start=1)
    ]
    write_polish_state(project.dir, PolishState(iteration=2, trajectory=trajectory))
    shown = " ".join(_printed(project_detail(config, project.id), 200).split())
    assert (
        "converging: 7 → 5 issues over iterations 1–2 (the reviewer's counts); "
        "the last iteration cost $0.50" in shown
    )
