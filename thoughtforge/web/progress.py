"""Phases 3–4 as the page shows them: build progress, the polish trajectory as a chart, the last
iteration's guard verdicts, and the deliverable.

Read from the files the phases write (`thoughtforge.log`'s `build_progress` events for a plan,
`code_build.json` for code, `polish_state.json`, `polish_log.md`); a file that cannot be read
shows as a problem in the panel, never as an error page.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ValidationError

from thoughtforge.core import (
    CODE_BUILD_FILE,
    Project,
    Status,
    read_events,
)
from thoughtforge.core.budget import usd
from thoughtforge.core.links import read_own_text
from thoughtforge.models import Severity
from thoughtforge.phases.plugin_contract import Plugin
from thoughtforge.phases.polish.record import read_polish_record
from thoughtforge.plugins.code.build_state import CodeBuildState
from thoughtforge.web.thread import render_markdown

CHART_WIDTH = 560
CHART_HEIGHT = 180
_PAD = 28
_COLOURS = {Severity.CRITICAL: "#b91c1c", Severity.MEDIUM: "#d97706", Severity.MINOR: "#2563eb"}
_DELIVERABLE_PREVIEW_CHARS = 200_000


class ProgressItem(BaseModel):
    label: str
    done: bool
    detail: str = ""


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


class Panel(BaseModel):
    """Everything below the thread for a project past Phase 2."""

    build: list[ProgressItem] = []
    chart: Chart | None = None
    costs: list[IterationCost] = []
    guards: list[str] = []
    verdict: str = ""
    deliverable_html: str = ""
    polish_log_html: str = ""
    problems: list[str] = []
    still_open: list[str] = []
    """Done at a plateau above the thresholds: the issues the last review left open."""

    @property
    def empty(self) -> bool:
        return not (self.build or self.chart or self.deliverable_html or self.problems)


def panel_for(project: Project, status: Status, plugin: Plugin) -> Panel:
    """`plugin` is the project's type: a document deliverable is previewed wherever its plugin
    keeps it; code (the project's files) shows its steps instead."""
    panel = Panel()
    if plugin.builds_files:
        panel.build = _code_steps(project, panel.problems)
    else:
        panel.build = _plan_sections(project)
    _add_polish(project, panel)
    document = plugin.deliverable_path(project.dir)
    if not plugin.builds_files and document.exists():
        text = _read(document, panel.problems)
        panel.deliverable_html = render_markdown(text[:_DELIVERABLE_PREVIEW_CHARS])
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


def _plan_sections(project: Project) -> list[ProgressItem]:
    latest = next(
        (e for e in reversed(read_events(project.dir)) if e.get("event") == "build_progress"), None
    )
    return [
        ProgressItem(
            label=str(s.get("heading", "")),
            done=s.get("filled") == s.get("slots"),
            detail=f"{s.get('filled')}/{s.get('slots')} slots",
        )
        for s in (latest or {}).get("sections", [])
    ]


def _code_steps(project: Project, problems: list[str]) -> list[ProgressItem]:
    path = project.dir / CODE_BUILD_FILE
    if not path.exists():
        return []
    try:
        state = CodeBuildState.model_validate(json.loads(read_own_text(path)))
    except (OSError, ValueError, ValidationError) as exc:
        problems.append(f"{CODE_BUILD_FILE}: {str(exc)[:200]}")
        return []
    items = [
        ProgressItem(label=step.title, done=step.done, detail=f"step {n}")
        for n, step in enumerate(state.steps or [], start=1)
    ]
    items.append(
        ProgressItem(label="built", done=state.built, detail=f"{state.cycles} test-fix cycle(s)")
    )
    return items


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
    panel.polish_log_html = render_markdown(record.log_text) if record.log_text else ""
    last = record.last_iteration
    if last is not None:
        panel.guards, panel.verdict = last.guards, last.verdict
    if record.state.completed and record.state.plateau:
        panel.still_open = [
            f"{i.severity}{f' ({i.location})' if i.location else ''}: {i.description}"
            for i in record.state.last_issues
        ]
