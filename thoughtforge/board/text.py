"""The board in the terminal: the seven columns side by side, each a stack of cards.

A pure function of the cards, so it can be golden-tested. The columns keep one width; a console
too narrow for all seven puts the rest in a second (and third) band below, never squeezing a
card until its name no longer reads.
"""

from __future__ import annotations

from collections.abc import Callable
from math import ceil

from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.rule import Rule
from rich.segment import Segment
from rich.style import Style
from rich.table import Table
from rich.text import Text

from thoughtforge.board.cards import COLUMNS, Badge, Card, by_column, sparkline
from thoughtforge.core.project_view import RunPlace
from thoughtforge.models import Phase
from thoughtforge.terminal_text import inert

MIN_COLUMN_WIDTH = 26
"""Narrowest column, borders included, that still fits a card's lines (182 columns fit seven);
wider when a project id would not fit on one line (a folded id cannot be copied)."""
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


_Piece = tuple[str, str]
"""Some of a card's text and its own style ("" for none: the card's style alone)."""

RUN_WORDS: dict[RunPlace, _Piece] = {
    RunPlace.STARTING: ("starting", "cyan"),
    RunPlace.WORKING: ("working", "cyan"),
    RunPlace.WAITING: ("waits for you", "magenta"),
    RunPlace.SUSPENDED: ("waits for you (suspended)", "magenta"),
}
"""A run the person may want to know about; an idle, halted or done project says nothing
more than its column and badge."""


def _card_lines(card: Card) -> list[list[_Piece]]:
    """One card's lines: who it is, its badge, who works on it, how its polish goes."""
    lines: list[list[_Piece]] = [[(inert(card.name), "")]]
    if card.name != card.project_id:
        lines.append([(inert(card.project_id), "dim")])
    if card.badge is not None:
        badge = [(str(card.badge), _BADGE_STYLES[card.badge])]
        if card.halt_reason is not None and card.badge is not Badge.TERMINATED:
            badge.append((f" {inert(str(card.halt_reason))}", "yellow"))
        lines.append(badge)
    if card.run in RUN_WORDS:
        lines.append([RUN_WORDS[card.run]])
    if work_line(card):
        lines.append([(inert(work_line(card)), "")])
    if card.trajectory:
        spark = sparkline(card.trajectory[-SPARK_VALUES:])
        lines.append([(spark, "cyan"), (f" iteration {card.iteration}", "")])
    if card.counts is not None:
        c = card.counts
        lines.append([(f"{c.critical} crit · {c.medium} med · {c.minor} min", "")])
    if card.spent:
        lines.append([(f"spent {inert(card.spent)}", "")])
    if card.problem:
        lines.append([(inert(card.problem), "red")])
    return lines


def _card_style(card: Card) -> str:
    return "bold strike" if card.badge is Badge.TERMINATED else "bold"


def _as_text(line: list[_Piece], style: str) -> Text:
    """A card's line as a `Text` in the card's style, for rich to wrap. Rich wraps each line of a
    `Text` on its own, so a card's lines wrap alike one by one or all in one `Text`."""
    text = Text(style=style)
    for piece, own in line:
        text.append(piece, style=own or None)
    return text


class _Board:
    """The columns in as few bands as the console's width allows, balanced, all of one width."""

    def __init__(self, columns: dict[Phase, list[Card]], /) -> None:
        self.columns = columns

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        ids = [cell_len(card.project_id) for cards in self.columns.values() for card in cards]
        narrowest = max([MIN_COLUMN_WIDTH, *(width + 4 for width in ids)])  # an id never folds
        fits = max(1, options.max_width // narrowest)
        per_band = ceil(len(COLUMNS) / ceil(len(COLUMNS) / fits))  # 4 + 3, never 5 + 2
        content_width = max(1, (options.max_width - 1) // per_band - 3)  # a border, two spaces
        phases = list(COLUMNS)
        for start in range(0, len(phases), per_band):
            band = phases[start : start + per_band]
            titles = [f"{COLUMNS[phase]} ({len(self.columns[phase])})" for phase in band]
            yield _Band(titles, [_Stack(self.columns[phase]) for phase in band], content_width)


class _Band:
    """Some columns side by side under their titles: a rich `Table` of one row, drawn directly.

    A `Table` passes every line of every cell through several layers that measure, pad and crop
    it again, which for a board of 1,000 cards takes longer than drawing the cards. Here the
    columns have one fixed width, which the console holds, so while every title fits on its line
    (on a console too narrow for the columns none does) the layout is known: each column's lines
    side by side between the borders, the same characters in the same styles as the `Table`
    draws, each unstyled stretch as one segment (printing costs by the segment). Otherwise the
    `Table` draws the band.
    """

    def __init__(self, titles: list[str], stacks: list[_Stack], content_width: int) -> None:
        self.titles = titles
        self.stacks = stacks
        self.content_width = content_width

    def table(self) -> Table:
        """The band as a rich `Table`."""
        band = Table(box=box.ROUNDED, expand=False)
        for title in self.titles:
            band.add_column(title, width=self.content_width, overflow="fold")
        band.add_row(*self.stacks)
        return band

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = self.content_width
        if not all(_fits(title, width) for title in self.titles):
            yield self.table()
            return
        cell_options = options.update(
            width=width,
            justify="left",
            no_wrap=False,
            overflow="fold",
            height=None,
            highlight=False,
        )
        stacks = [stack.lines(console, cell_options) for stack in self.stacks]
        frame = box.ROUNDED.substitute(options, safe=console.safe_box)
        widths = [width + 2] * len(self.titles)
        yield Segment(frame.get_top(widths))
        yield Segment.line()
        yield from self._titles(frame, console.get_style("table.header"))
        yield Segment(frame.get_row(widths, "head"))
        yield Segment.line()
        yield from self._cells(frame, stacks)
        yield Segment(frame.get_bottom(widths))
        yield Segment.line()

    def _titles(self, frame: box.Box, style: Style) -> RenderResult:
        """The titles' line, each title padded in the header's style as the `Table` pads it."""
        yield Segment(frame.head_left)
        for n, title in enumerate(self.titles):
            if n:
                yield Segment(frame.head_vertical)
            yield Segment(" ", style)
            yield Segment(title + " " * (self.content_width - cell_len(title)), style)
            yield Segment(" ", style)
        yield Segment(frame.head_right)
        yield Segment.line()

    def _cells(self, frame: box.Box, stacks: list[list[list[Segment]]]) -> RenderResult:
        """The stacks' lines side by side, a shorter stack filled with blank lines."""
        filler = [Segment(" " * self.content_width)]
        for line_no in range(max(len(lines) for lines in stacks)):
            run = frame.foot_left
            for n, lines in enumerate(stacks):
                run += f" {frame.foot_vertical} " if n else " "
                for segment in lines[line_no] if line_no < len(lines) else filler:
                    if not segment.style:
                        run += segment.text
                        continue
                    if run:
                        yield Segment(run)
                        run = ""
                    yield segment
            yield Segment(f"{run} {frame.foot_right}")
            yield Segment.line()


class _Stack:
    """A column's cards, a rule between each two: what a `Group` of their `Text`s and `Rule`s
    draws, several times faster.

    Rich wraps each `Text` anew, for every card (bench/bench_status.py times the board). A card's
    line that fits the column needs no wrapping: it is its pieces, padded to the width, segment for
    segment as the `Text` renders. The rule is the same each time, so it is drawn once. A line too
    long (or with a line break or tab in a name) is left to rich. A band drawn by its `Table`
    renders the stack as a cell.
    """

    def __init__(self, cards: list[Card]) -> None:
        self.cards = cards

    def lines(self, console: Console, options: ConsoleOptions) -> list[list[Segment]]:
        """The stack's lines at the width `options` give, each as wide as that."""
        width = options.max_width
        plain = Style.null()
        if not self.cards:
            return console.render_lines(Text("no projects", style="dim"), options, style=plain)
        rule = console.render_lines(Rule(style="dim"), options, style=plain)
        styles: dict[str, Style] = {}

        def style_of(name: str) -> Style:
            """Each style parsed once: rich parses a style each time it is named."""
            if name not in styles:
                styles[name] = console.get_style(name)
            return styles[name]

        lines: list[list[Segment]] = []
        for n, card in enumerate(self.cards):
            if n:
                lines += rule
            style = _card_style(card)
            for line in _card_lines(card):
                if _fits("".join(piece for piece, _ in line), width):
                    lines.append(_drawn(line, style_of(style), style_of, width))
                else:
                    lines += console.render_lines(_as_text(line, style), options, style=plain)
        return lines

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for line in self.lines(console, options):
            yield from line
            yield Segment.line()


def _fits(text: str, width: int) -> bool:
    """Whether rich would leave this line as it is, only padded: no wrapping, no tab to expand.
    Wrapping trims by characters, so a line of zero-width characters must fit by those too."""
    return "\n" not in text and "\t" not in text and max(cell_len(text), len(text)) <= width


def _drawn(
    line: list[_Piece], style: Style, style_of: Callable[[str], Style], width: int
) -> list[Segment]:
    """What a card's `Text` renders one of its lines to when it fits: a segment for each styled
    piece (its style over the card's), one for each run of unstyled text, padding included."""
    segments = []
    run = ""
    for piece, own in line:
        if not own:
            run += piece
            continue
        if run:
            segments.append(Segment(run, style))
            run = ""
        segments.append(Segment(piece, style + style_of(own)))
    run += " " * (width - cell_len("".join(piece for piece, _ in line)))
    if run:
        segments.append(Segment(run, style))
    return segments
