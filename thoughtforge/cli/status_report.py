"""What `thoughtforge status` shows: the project table, or one project in detail."""

from __future__ import annotations

from collections.abc import Iterator

from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.segment import Segment
from rich.style import Style
from rich.table import Table
from rich.text import Text

from thoughtforge.actions.project_page import (
    ListedProject,
    PolishSummary,
    StatusDetail,
    listed_projects,
    project_named,
    status_detail,
)
from thoughtforge.cli.next_steps import start_command
from thoughtforge.config import Config
from thoughtforge.models import Phase
from thoughtforge.terminal_text import inert, inert_text

_COLUMNS = ("id", "name", "phase", "type", "agent", "spent", "updated")
UNNAMED = "(named when the intent is confirmed)"
"""The name cell of a project in Phase 1: the agent names it from the brain dump at the end."""
_WRAPPED_MIN = 12
"""The least width the name and phase columns wrap into before the listing goes compact."""

_Cell = tuple[str, str]
"""A cell's text and its style ("" for none)."""


def project_table(config: Config) -> tuple[ProjectTable, list[str]]:
    """The table, plus one line per project whose status.json could not be read."""
    rows: list[tuple[_Cell, ...]] = []
    problems = []
    for listing in listed_projects(config):
        project_id = (inert(listing.project_id), "")
        if listing.status is None:
            rows.append((project_id, ("", ""), _phase_cell(listing), *[("", "")] * 4))
            problems.append(listing.error or "")
            continue
        s = listing.status
        rows.append(
            (
                project_id,
                (inert(s.project_name), "") if s.project_name else (UNNAMED, "dim"),
                _phase_cell(listing),
                (inert(s.deliverable_type or ""), ""),
                (inert(s.agent), ""),
                _spent_cell(listing),
                (f"{s.updated_at:%m-%d %H:%M}", ""),
            )
        )
    return ProjectTable(rows), problems


class ProjectTable:
    """The listing as rich's `Table` draws it, character for character and style for style, in a
    fraction of the time.

    A `Table` lays out each cell on its own: for 1,000 projects, most of a second. When every
    cell fits its column on one line (a console wide enough, no line break or tab in a name), the
    layout needs none of that: each column is as wide as its widest cell, each row is one line.
    Those rows are drawn directly, and their unstyled stretches (borders, padding, plain cells)
    go out as one segment, since printing costs by the segment; any other listing is left to
    the `Table`.
    """

    def __init__(self, rows: list[tuple[_Cell, ...]]) -> None:
        self.rows = rows

    def table(self) -> _Either:
        """The rows in a rich `Table`: the name and the phase wrap, the other columns keep to
        one line; where that would cut them, the compact table of two columns."""
        table = Table()
        for column in _COLUMNS:
            table.add_column(column, no_wrap=column not in ("name", "phase"))
        for row in self.rows:
            table.add_row(*(Text(text, style=style) for text, style in row))
        widest = [
            max([cell_len(column), *(cell_len(row[n][0]) for row in self.rows)])
            for n, column in enumerate(_COLUMNS)
        ]
        least = sum(
            min(width, _WRAPPED_MIN) if column in ("name", "phase") else width
            for column, width in zip(_COLUMNS, widest, strict=True)
        )
        return _Either(table, self.compact(), least + 3 * len(_COLUMNS) + 1)

    def compact(self) -> Table:
        """Two columns, for a console too narrow for seven (80 columns): the id over the type,
        agent, spend and time, the name over the phase, nothing cut."""
        table = Table()
        table.add_column("id\ntype · agent · spent · updated", no_wrap=True)
        table.add_column("name\nphase")
        for id_, name, phase, kind, agent, spent, updated in self.rows:
            about = " · ".join(text for text, _ in (kind, agent, spent, updated) if text)
            table.add_row(
                Text.assemble((id_[0], id_[1]), "\n", about),
                Text.assemble((name[0], name[1]), "\n", (phase[0], phase[1])),
            )
        return table

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        widths = self._one_line_widths()
        padded = [width + 2 for width in widths or []]
        if widths is None or sum(padded) + len(_COLUMNS) + 1 > options.max_width:
            yield self.table()
            return
        frame = box.HEAVY_HEAD.substitute(options, safe=console.safe_box)
        header = console.get_style("table.header")
        yield Segment(frame.get_top(padded))
        yield Segment.line()
        ends = (frame.head_left, frame.head_vertical, frame.head_right)
        yield from _line([(name, header) for name in _COLUMNS], widths, ends, header)
        yield Segment(frame.get_row(padded, "head"))
        yield Segment.line()
        named = {style for row in self.rows for _, style in row if style}
        styles: dict[str, Style | None] = {style: console.get_style(style) for style in named}
        styles[""] = None
        for n, row in enumerate(self.rows, start=1):
            if n < len(self.rows):
                ends = (frame.mid_left, frame.mid_vertical, frame.mid_right)
            else:
                ends = (frame.foot_left, frame.foot_vertical, frame.foot_right)
            yield from _line([(text, styles[style]) for text, style in row], widths, ends, None)
        yield Segment(frame.get_bottom(padded))
        yield Segment.line()

    def _one_line_widths(self) -> list[int] | None:
        """Each column's width inside its padding as the `Table` measures it (its widest cell),
        or None when a cell would not stay one line at that width."""
        widths = [cell_len(name) for name in _COLUMNS]
        chars = list(widths)
        for row in self.rows:
            for n, (text, _) in enumerate(row):
                if "\t" in text or (text and text.splitlines() != [text]):
                    return None
                widths[n] = max(widths[n], cell_len(text))
                chars[n] = max(chars[n], len(text))
        # Wrapping trims by characters: a cell of zero-width characters may be trimmed to fit.
        return None if any(c > w for c, w in zip(chars, widths, strict=True)) else widths


class _Either:
    """The full table where its one-line columns fit whole beside the wrapped ones, else the
    compact one."""

    def __init__(self, full: Table, compact: Table, least: int) -> None:
        self.full, self.compact, self.least = full, compact, least

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.full if self.least <= options.max_width else self.compact


def _line(
    cells: list[tuple[str, Style | None]],
    widths: list[int],
    ends: tuple[str, str, str],
    padding: Style | None,
) -> Iterator[Segment]:
    """One row of one-line cells between the frame's borders, each cell padded to its width and
    within `padding`'s spaces; each run of unstyled text is one segment."""
    left, between, right = ends
    run = left
    for n, ((text, style), width) in enumerate(zip(cells, widths, strict=True)):
        if n:
            run += between
        for piece, piece_style in (
            (" ", padding),
            (text + " " * (width - cell_len(text)), style),
            (" ", padding),
        ):
            if not piece_style:
                run += piece
                continue
            if run:
                yield Segment(run)
                run = ""
            yield Segment(piece, piece_style)
    yield Segment(run + right)
    yield Segment.line()


def project_detail(config: Config, project_id: str) -> Group:
    """Every status field, what holds the project's claim, the polish summary, and files left
    uncommitted (`actions.project_page.status_detail`, the page's model with `status`'s extras)."""
    detail = status_detail(config, project_named(config, project_id))
    project, view, status = detail.project, detail.view, detail.status
    facts = Table(box=None, show_header=False)
    facts.add_row("project", inert_text(project.id))
    facts.add_row("directory", inert_text(str(project.dir)))
    for field, value in status.model_dump(mode="json").items():
        facts.add_row(field, inert_text("" if value is None else str(value)))
    facts.add_row("run", view.run.value)
    if view.revision > 1:
        facts.add_row("revision", str(view.revision))
    parts: list[Table | Text] = [facts]
    if view.claim_note is not None:
        parts.append(inert_text(f"claim: {view.claim_note}", style="yellow"))
    if view.stranded is not None:
        parts.append(inert_text(view.stranded, style="yellow"))
    if detail.stale is not None:
        parts.append(inert_text(detail.stale, style="yellow"))
    waiting = view.waiting
    if waiting is not None:
        where = waiting.page or "its run (the Prefect server it used is not recorded)"
        parts.append(
            inert_text(
                f"waiting for {detail.waits_for} since {waiting.since:%m-%d %H:%M}: {where} — "
                f"or `thoughtforge {waiting.verbs} {project.id}`",
                style="cyan",
            )
        )
    if detail.restored is not None:
        step = start_command(project.id, status.phase)
        parts.append(inert_text(f"{detail.restored} {step}".rstrip(), style="cyan"))
    parts.append(_spend_detail(detail))
    if detail.polish is not None:
        parts.append(_polish_summary(detail.polish))
    if detail.foreign:
        listing = ", ".join(detail.foreign)
        parts.append(
            inert_text(f"not written by ThoughtForge, not committed: {listing}", style="yellow")
        )
    return Group(*parts)


def _spent_cell(listing: ListedProject) -> _Cell:
    """What the project spent (and of what budget); empty before its first agent call."""
    summary = listing.spend
    if summary is None:
        return "", ""
    if summary.error is not None:
        return "unknown", "red"
    if not summary.total.calls and summary.budget.max_usd is None:
        return "", ""
    return summary.short, ""


def _spend_detail(detail: StatusDetail) -> Text:
    """`spent: $1.23 of $5.00 · …`, then one line per phase and polish iteration."""
    summary = detail.spend
    if summary.error is not None:
        return inert_text(f"spent: {summary.line}", style="red")
    whose = " (the project's own budget)" if summary.own_budget else ""
    lines = [f"spent: {summary.line}{whose}"]
    lines += [f"  {where}: {what}" for where, what in summary.breakdown()]
    if summary.total.unpriced_calls:
        lines.append(
            "  calls without a price are counted in tokens only: set "
            "agents.available.<agent>.price_per_million_tokens to count their money"
        )
    return inert_text("\n".join(lines))


def _phase_cell(listing: ListedProject) -> _Cell:
    status = listing.status
    if status is None:
        return "unreadable", "red"
    archived = ", archived" if status.archived_at is not None else ""
    if status.phase is Phase.HALTED:
        return f"halted ({status.halt_reason}) in {status.halted_from}{archived}", "yellow"
    return f"{status.phase.value}{archived}", "dim" if archived else ""


def _polish_summary(polish: PolishSummary | str) -> Text:
    if isinstance(polish, str):
        return inert_text(polish, style="red")
    return Text(
        f"polish: iteration {polish.iteration}, "
        f"{polish.critical} critical, {polish.medium} medium, {polish.minor} minor"
        + (" (completed)" if polish.completed else "")
        + (f"\n  {polish.heading}" if polish.heading is not None else "")
    )
