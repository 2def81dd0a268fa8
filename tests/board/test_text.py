"""The terminal board: a golden rendering of every kind of card, how it fits narrow consoles, and
that it looks exactly as rich's own tables, rules and texts draw it, without their cost."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from io import StringIO
from math import ceil
from pathlib import Path

import pytest
from rich import box
from rich.console import Console, ConsoleOptions, Group, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from tests.consoles import CONSOLES
from thoughtforge.board.cards import COLUMNS, Badge, Card, by_column, sparkline
from thoughtforge.board.text import MIN_COLUMN_WIDTH, SPARK_VALUES, render_board, work_line
from thoughtforge.models import Counts, DeliverableType, HaltReason, Phase
from thoughtforge.terminal_text import inert, inert_text

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
    # Three columns would fold a 26-character id: 80 characters hold two, 2 + 2 + 2 + 1.
    assert printed.count("╭") == 4
    assert all(any(card.project_id in line for line in printed.splitlines()) for card in CARDS)
    assert "Todo CLI" in printed and "HALTED agent_failure" in printed


def test_short_ids_keep_three_columns_at_80() -> None:
    short = [card.model_copy(update={"project_id": card.project_id[9:]}) for card in CARDS]
    assert _printed(short, width=80).count("╭") == 3  # 3 + 3 + 1


def test_a_long_polish_shows_the_latest_iterations_in_its_sparkline() -> None:
    trajectory = [30 - i for i in range(30)]
    card = CARDS[0].model_copy(update={"iteration": 30, "trajectory": trajectory})
    printed = _printed([card], width=200)
    assert f"{sparkline(trajectory[-SPARK_VALUES:])} iteration 30" in printed
    assert sparkline(trajectory[-SPARK_VALUES - 1 :]) not in printed


UNUSUAL = [
    *CARDS,
    Card(
        project_id="20261124-long-0001",
        name="A name long enough to fold over three lines of any column",
        column=Phase.BUILDING,
        agent="a-very-long-agent-name-from-config",
        deliverable_type=DeliverableType.CODE,
        updated_at=_at(4),
    ),
    Card(
        project_id="20261124-tab-0006",
        name="Tab\there",
        column=Phase.HUMAN_REVIEW,
        agent="claude",
    ),
    Card(
        project_id="20261124-lines-0002",
        name="Line\nbreak",
        column=Phase.BUILDING,
        agent="codex",
        updated_at=_at(3),
    ),
    Card(
        project_id="20261124-broken-0007",
        name="Broken",
        column=Phase.POLISHING,
        problem="polish_state.json: does not match the schema (iteration: must be >= 0)",
    ),
    Card(
        project_id="20261124-wide-0003",
        name="婚礼 计划 🎉 for sixty",
        column=Phase.SPEC_BUILDING,
        badge=Badge.TERMINATED,
        halt_reason=HaltReason.HUMAN_TERMINATED,
        agent="claude",
        updated_at=_at(2),
        iteration=2,
        trajectory=[4, 2],
        counts=Counts(critical=1),
    ),
    Card(
        project_id="20261124-accent-0004",
        name="Cafe\u0301" * 5 + "\u3000",
        column=Phase.SPEC_BUILDING,
        updated_at=_at(1),
    ),
    Card(
        project_id="20261124-exact-0005",
        name="x" * 25,
        column=Phase.DONE,
        badge=Badge.HALTED,
        halt_reason=HaltReason.GUARD_MAX_ITERATIONS,
    ),
]
"""Every kind of card, and cards rich must wrap: a long name, a line break, a tab, a long
problem, wide characters, a name of more characters than cells ending in a wide space (which
wrapping trims), a name exactly as wide as a column."""


class _AsRichDrawsIt:
    """The board laid out by rich alone: a `Table` for each band, a `Group` of `Text`s and
    `Rule`s for each column. What the board must look like."""

    def __init__(self, cards: list[Card]) -> None:
        self.columns = by_column(cards)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Table]:
        ids = [len(card.project_id) for cards in self.columns.values() for card in cards]
        fits = max(1, options.max_width // max([MIN_COLUMN_WIDTH, *(n + 4 for n in ids)]))
        per_band = ceil(len(COLUMNS) / ceil(len(COLUMNS) / fits))
        content_width = max(1, (options.max_width - 1) // per_band - 3)
        phases = list(COLUMNS)
        for start in range(0, len(phases), per_band):
            band = Table(box=box.ROUNDED, expand=False)
            for phase in phases[start : start + per_band]:
                title = f"{COLUMNS[phase]} ({len(self.columns[phase])})"
                band.add_column(title, width=content_width, overflow="fold")
            band.add_row(*(_stack(self.columns[p]) for p in phases[start : start + per_band]))
            yield band


def _stack(cards: list[Card]) -> RenderableType:
    if not cards:
        return Text("no projects", style="dim")
    parts: list[RenderableType] = []
    for card in cards:
        if parts:
            parts.append(Rule(style="dim"))
        parts.append(_card_text(card))
    return Group(*parts)


def _card_text(card: Card) -> Text:
    terminated = card.badge is Badge.TERMINATED
    text = inert_text(card.name, style="bold strike" if terminated else "bold")
    if card.name != card.project_id:
        text.append(f"\n{inert(card.project_id)}", style="dim")
    if card.badge is not None:
        text.append("\n")
        style = {Badge.HALTED: "bold yellow", Badge.TERMINATED: "bold red"}
        text.append(str(card.badge), style=style.get(card.badge, "bold white on red"))
        if card.halt_reason is not None and not terminated:
            text.append(f" {inert(str(card.halt_reason))}", style="yellow")
    if work_line(card):
        text.append(f"\n{inert(work_line(card))}")
    if card.trajectory:
        text.append(f"\n{sparkline(card.trajectory[-SPARK_VALUES:])}", style="cyan")
        text.append(f" iteration {card.iteration}")
    if card.counts is not None:
        c = card.counts
        text.append(f"\n{c.critical} crit · {c.medium} med · {c.minor} min")
    if card.problem:
        text.append(f"\n{inert(card.problem)}", style="red")
    return text


def _drawn(renderable: RenderableType, width: int, console: str) -> str:
    printer = CONSOLES[console](width)
    printer.print(renderable)
    return printer.file.getvalue()  # type: ignore[attr-defined]


@pytest.mark.parametrize("console", CONSOLES)
def test_the_board_looks_as_rich_draws_it(console: str) -> None:
    """Seven columns, bands of four, three and one, and consoles too narrow for a card."""
    for width in (3, 20, 40, 80, 104, 130, 182, 200, 260):
        board = _drawn(render_board(UNUSUAL), width, console)
        assert board == _drawn(_AsRichDrawsIt(UNUSUAL), width, console), width


def test_cards_that_fit_are_drawn_without_wrapping_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rich wraps only a rule and an empty column's words, never a card, and lays out no table."""
    many = [
        card.model_copy(
            update={"project_id": f"20261124-{n:04d}", "problem": card.problem and "bad"}
        )
        for n, card in enumerate(CARDS * 20)
    ]
    expected = _drawn(_AsRichDrawsIt(many), 200, "colour")
    wrapped = []
    original_wrap = Text.wrap

    def count_wrap(text: Text, *args: object, **kwargs: object) -> object:
        wrapped.append(text.plain)
        return original_wrap(text, *args, **kwargs)  # type: ignore[arg-type]

    def refuse(*_: object) -> None:
        raise AssertionError("a Table laid out a band")

    monkeypatch.setattr(Text, "wrap", count_wrap)
    monkeypatch.setattr(Table, "__rich_console__", refuse)
    assert _drawn(render_board(many), 200, "colour") == expected
    assert len(wrapped) <= len(COLUMNS)
