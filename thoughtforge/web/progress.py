"""The deliverable pane's body: the draft under review in Phases 1–2 (`pane`), then Phases 3–4
as the page shows them (`actions.progress` reads them): build progress (the step in progress
marked), the polish trajectory as a chart, the last iteration's guard verdicts, and the
deliverable, rendered inert.
"""

from __future__ import annotations

from pydantic import BaseModel

from thoughtforge.actions.progress import FindingRow, IterationCost, progress_of
from thoughtforge.core.build_progress import ProgressItem
from thoughtforge.core.project import Project
from thoughtforge.core.state import Status
from thoughtforge.models import Severity
from thoughtforge.phases.plugin_contract import Plugin
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
    progress = progress_of(project, status, plugin)
    return Panel(
        draft=draft_view(project, status),
        build=progress.build,
        in_progress=progress.in_progress,
        final=progress.final,
        chart=chart_of(progress.trajectory) if progress.trajectory is not None else None,
        costs=progress.costs,
        trend=progress.trend,
        guards=progress.guards,
        verdict=progress.verdict,
        deliverable_html=_preview(progress.deliverable),
        polish_log_html=render_markdown(progress.polish_log) if progress.polish_log else "",
        traceability_html=_preview(progress.traceability),
        problems=progress.problems,
        still_open=progress.still_open,
        findings=progress.findings,
    )


def _preview(text: str | None) -> str:
    return render_markdown(text[:_DELIVERABLE_PREVIEW_CHARS]) if text is not None else ""


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
