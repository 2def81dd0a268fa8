"""The deliverable pane's body as the page shows it (`actions.progress` reads it): the draft under
review in Phases 1–2 (`pane`), then Phases 3–4: build progress (the step in progress
marked), the polish trajectory as a chart, the last iteration's guard verdicts, and the
deliverable, rendered inert.
"""

from __future__ import annotations

from pydantic import BaseModel

from thoughtforge.actions.progress import DeliverablePane, Progress
from thoughtforge.models import Severity
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


class Panel(Progress):
    """Everything the deliverable pane shows under its head: Phases 3–4's read model, with what
    the page adds: the draft under review rendered, the trajectory as a chart, the documents
    rendered inert."""

    draft: DraftView | None = None
    chart: Chart | None = None
    deliverable_html: str = ""
    polish_log_html: str = ""
    traceability_html: str = ""

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


def panel_for(pane: DeliverablePane) -> Panel:
    progress = pane.progress
    return Panel(
        **dict(progress),
        draft=draft_view(pane.draft),
        chart=chart_of(progress.trajectory) if progress.trajectory is not None else None,
        deliverable_html=_preview(progress.deliverable),
        polish_log_html=render_markdown(progress.polish_log) if progress.polish_log else "",
        traceability_html=_preview(progress.traceability),
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
