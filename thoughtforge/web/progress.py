"""The deliverable pane's body: the draft under review in Phases 1–2 (`pane`), then Phases 3–4
as the page shows them: build progress (the step in progress marked), the polish trajectory as a
chart, the last iteration's guard verdicts, and the deliverable.

Read from the files the phases write (`build_progress.json`, as the deliverable type's plugin
reported it, whatever the type; `polish_state.json`, `polish_log.md`); a file that cannot be read
shows as a problem in the panel, never as an error page.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from thoughtforge.board.heading import polish_heading
from thoughtforge.core import Project, Status, is_running
from thoughtforge.core.build_progress import ProgressItem, read_build_progress
from thoughtforge.core.own_files import read_own_text
from thoughtforge.core.spend import usd
from thoughtforge.errors import StateFileError
from thoughtforge.models import Phase, Severity
from thoughtforge.phases.plugin_contract import Plugin
from thoughtforge.phases.polish.ledger import Ledger
from thoughtforge.phases.polish.polish_log import finding_state
from thoughtforge.phases.polish.record import read_polish_record
from thoughtforge.phases.traceability import TRACEABILITY_FILE
from thoughtforge.web.pane import DraftView, draft_view
from thoughtforge.web.thread import render_markdown

CHART_WIDTH = 560
CHART_HEIGHT = 180
_PAD = 28
_COLOURS = {Severity.CRITICAL: "#b91c1c", Severity.MEDIUM: "#d97706", Severity.MINOR: "#2563eb"}
_DELIVERABLE_PREVIEW_CHARS = 200_000


class Series(BaseModel):
    severity: str
    colour: str
    points: list[tuple[float, float, int, int]]
    """x, y, iteration, count."""

    @property
    def polyline(self) -> str:
        return " ".join(f"{x:.1f},{y:.1f}" for x, y, _, _ in self.points)


class Chart(BaseModel):
    width: int = CHART_WIDTH
    height: int = CHART_HEIGHT
    series: list[Series]
    top: int
    last_iteration: int


class IterationCost(BaseModel):
    """One polish iteration's counts beside what its agent calls cost."""

    iteration: int
    issues: str
    cost: str
    """`$0.71`, or `—` when none of its calls had a price."""


class FindingRow(BaseModel):
    """One finding of the ledger as the polish panel lists it (text, escaped by the template)."""

    id: str
    severity: str
    location: str
    description: str
    state: str
    open: bool


class Panel(BaseModel):
    """Everything the deliverable pane shows under its head."""

    draft: DraftView | None = None
    build: list[ProgressItem] = []
    in_progress: int | None = None
    """The build step being worked on now (the first not done, while a run builds)."""
    final: bool = False
    """Done: the deliverable comes first, the way it was made after it."""
    chart: Chart | None = None
    costs: list[IterationCost] = []
    trend: str = ""
    """Converging, stuck or diverging, with the figures (`board.heading`)."""
    guards: list[str] = []
    verdict: str = ""
    deliverable_html: str = ""
    polish_log_html: str = ""
    traceability_html: str = ""
    """Each acceptance criterion with its evidence (`docs/traceability.md`)."""
    problems: list[str] = []
    still_open: list[str] = []
    """Done at a plateau above the thresholds: the issues the last review left open."""
    findings: list[FindingRow] = []
    """The ledger's open findings, then those a review dismissed (`_findings.html`)."""

    @property
    def empty(self) -> bool:
        return not (
            self.draft
            or self.build
            or self.chart
            or self.deliverable_html
            or self.traceability_html
            or self.problems
        )


def panel_for(project: Project, status: Status, plugin: Plugin) -> Panel:
    """`plugin` is the project's type: a document deliverable is previewed wherever its plugin
    keeps it (a deliverable that is the project's files is not a document)."""
    panel = Panel(draft=draft_view(project, status), final=status.phase is Phase.DONE)
    panel.build = _build_progress(project, panel.problems)
    if status.phase is Phase.BUILDING and is_running(project):
        panel.in_progress = next((n for n, item in enumerate(panel.build) if not item.done), None)
    _add_polish(project, panel)
    document = plugin.deliverable_path(project.dir)
    if document.is_file():
        text = _read(document, panel.problems)
        panel.deliverable_html = render_markdown(text[:_DELIVERABLE_PREVIEW_CHARS])
    trace = project.dir / TRACEABILITY_FILE
    if trace.is_file():
        text = _read(trace, panel.problems)
        panel.traceability_html = render_markdown(text[:_DELIVERABLE_PREVIEW_CHARS])
    return panel


def _read(path: Path, problems: list[str]) -> str:
    """The file's text, never through a link an agent planted (that is a problem on the panel)."""
    try:
        return read_own_text(path)
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(str(exc)[:300])
        return ""


def chart_of(rows: list[dict[str, int]]) -> Chart | None:
    """An inline SVG's worth of points: one per iteration, one line per severity."""
    if not rows:
        return None
    top = max(1, *(row[s.value] for row in rows for s in Severity))
    span_x = max(len(rows) - 1, 1)
    width, height = CHART_WIDTH - 2 * _PAD, CHART_HEIGHT - 2 * _PAD
    series = [
        Series(
            severity=severity.value,
            colour=_COLOURS[severity],
            points=[
                (
                    _PAD + width * n / span_x,
                    _PAD + height * (1 - row[severity.value] / top),
                    row["iteration"],
                    row[severity.value],
                )
                for n, row in enumerate(rows)
            ],
        )
        for severity in Severity
    ]
    return Chart(series=series, top=top, last_iteration=rows[-1]["iteration"])


def _build_progress(project: Project, problems: list[str]) -> list[ProgressItem]:
    try:
        progress = read_build_progress(project.dir)
    except StateFileError as exc:
        problems.append(str(exc)[:300])
        return []
    return progress.items if progress else []


def _add_polish(project: Project, panel: Panel) -> None:
    record = read_polish_record(project.dir)
    panel.problems.extend(record.problems)
    if record.state is None:
        return
    panel.chart = chart_of([entry.model_dump() for entry in record.trajectory])
    panel.costs = [
        IterationCost(
            iteration=entry.iteration,
            issues=f"{entry.critical} critical, {entry.medium} medium, {entry.minor} minor",
            cost="—" if entry.usd is None else usd(entry.usd),
        )
        for entry in record.trajectory
    ]
    heading = polish_heading(record.trajectory)
    panel.trend = heading.line if heading is not None else ""
    panel.polish_log_html = render_markdown(record.log_text) if record.log_text else ""
    last = record.last_iteration
    if last is not None:
        panel.guards, panel.verdict = last.guards, last.verdict
    if record.ledger is not None:
        panel.findings = _finding_rows(record.ledger, record.state.iteration)
    if record.state.completed and record.state.plateau:
        panel.still_open = [
            f"{i.severity}{f' ({i.location})' if i.location else ''}: {i.description}"
            for i in record.state.last_issues
        ]


def _finding_rows(ledger: Ledger, iteration: int) -> list[FindingRow]:
    shown = [*ledger.active, *(f for f in ledger.findings if f.status == "dismissed")]
    return [
        FindingRow(
            id=f.id,
            severity=f.severity.value,
            location=f.location,
            description=f.description,
            state=finding_state(f, iteration, quote=str),
            open=f.active,
        )
        for f in shown
    ]
