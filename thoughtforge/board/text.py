"""The board in the terminal: the seven columns side by side, each a stack of cards.

A pure function of the cards, so it can be golden-tested. The columns keep one width; a console
too narrow for all seven puts the rest in a second (and third) band below, never squeezing a
card until its name no longer reads.
"""

from __future__ import annotations

from math import ceil

from rich import box
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from thoughtforge.board.cards import COLUMNS, Badge, Card, by_column, sparkline
from thoughtforge.models import Phase
from thoughtforge.terminal_text import inert, inert_text

MIN_COLUMN_WIDTH = 26
"""Narrowest column, borders included, that still fits a card's lines (182 columns fit seven)."""
SPARK_VALUES = 12
"""The sparkline shows the latest iterations only: a long polish would not fit a column."""
START_HINT = "Start one with `thoughtforge new --brain-dump FILE` or `thoughtforge run FILE`."

_BADGE_STYLES: dict[Badge, str] = {
    Badge.HALTED: "bold yellow",
    Badge.TERMINATED: "bold red",
    Badge.UNREADABLE: "bold white on red",
}


def render_board(cards: list[Card]) -> RenderableType:
    """The board of these cards, laid out for whatever console prints it."""
    return _Board(by_column(cards))


def work_line(card: Card) -> str:
    """Who works on the project and what it makes (`claude · plan`); empty when neither is known."""
    return " · ".join(str(part) for part in (card.agent, card.deliverable_type) if part)


def _card_text(card: Card) -> Text:
    """One card's lines: who it is, its badge, who works on it, how its polish goes."""
    terminated = card.badge is Badge.TERMINATED
    text = inert_text(card.name, style="bold strike" if terminated else "bold")
    if card.name != card.project_id:
        text.append(f"\n{inert(card.project_id)}", style="dim")
    if card.badge is not None:
        text.append("\n")
        text.append(str(card.badge), style=_BADGE_STYLES[card.badge])
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


class _Board:
    """The columns in as few bands as the console's width allows, balanced, all of one width."""

    def __init__(self, columns: dict[Phase, list[Card]], /) -> None:
        self.columns = columns

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        fits = max(1, options.max_width // MIN_COLUMN_WIDTH)
        per_band = ceil(len(COLUMNS) / ceil(len(COLUMNS) / fits))  # 4 + 3, never 5 + 2
        content_width = max(1, (options.max_width - 1) // per_band - 3)  # a border, two spaces
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
