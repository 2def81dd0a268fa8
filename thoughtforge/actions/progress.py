"""Phases 3–4 as the doors read them: build progress (as the deliverable type's plugin reported
it, whatever the type), the polish record (its trajectory, each iteration's cost, the trend, the
last iteration's guards and verdict, the tracker's findings, what a plateau left open), and the
deliverable and its traceability as written. The page's pane renders it (`web.progress`), with
the draft under review before Phase 3 (`deliverable_pane`: the pane's one read).

Read from the files the phases write (`build_progress.json`, `polish_state.json`,
`polish_log.md`, `polish_ledger.json`); a file that cannot be read is a problem in the model,
never an error.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from thoughtforge.actions.draft import DraftUnderReview, draft_under_review
from thoughtforge.board.heading import polish_heading
from thoughtforge.config import Config
from thoughtforge.core.build_progress import ProgressItem, read_build_progress
from thoughtforge.core.own_files import read_own_text
from thoughtforge.core.project import Project
from thoughtforge.core.run_lock import is_running
from thoughtforge.core.spend.budget import usd
from thoughtforge.core.state import Status
from thoughtforge.errors import StateFileError
from thoughtforge.models import Phase, Severity
from thoughtforge.phases.plugin_contract import Plugin
from thoughtforge.phases.plugin_loader import plugin_for
from thoughtforge.phases.polish.finding_tracker import FindingTracker
from thoughtforge.phases.polish.polish_log import finding_state
from thoughtforge.phases.polish.record import PolishRecord, read_polish_record
from thoughtforge.phases.traceability import TRACEABILITY_FILE


class IterationCost(BaseModel):
    """One polish iteration's counts beside what its agent calls cost."""

    iteration: int
    issues: str
    cost: str
    """`$0.71`, or `—` when none of its calls had a price."""


class FindingRow(BaseModel):
    """One finding of the tracker as the polish panel lists it (text, escaped by the template)."""

    id: str
    severity: str
    location: str
    description: str
    state: str
    open: bool


class Progress(BaseModel):
    """Phases 3–4 of a project as its files say them now."""

    final: bool
    """Done: the deliverable comes first, the way it was made after it."""
    build: list[ProgressItem] = []
    in_progress: int | None = None
    """The build step being worked on now (the first not done, while a run builds)."""
    trajectory: list[dict[str, int]] | None = None
    """Each polish iteration's issues by severity; None before the loop's first iteration."""
    costs: list[IterationCost] = []
    trend: str = ""
    """Converging, stuck or diverging, with the figures (`board.heading`)."""
    guards: list[str] = []
    verdict: str = ""
    polish_log: str = ""
    deliverable: str | None = None
    """The deliverable document as written (untrusted Markdown); None when there is none."""
    traceability: str | None = None
    """Each acceptance criterion with its evidence (`docs/traceability.md`), as written."""
    problems: list[str] = []
    still_open: list[str] = []
    """Done at a plateau above the thresholds: the issues the last review left open."""
    findings: list[FindingRow] = []
    """The tracker's open findings, then those a review dismissed."""


class DeliverablePane(BaseModel):
    """What the deliverable pane shows under its head, from one read of the project's status:
    the draft under review in Phases 1–2, and Phases 3–4's progress."""

    draft: DraftUnderReview | None
    progress: Progress


def deliverable_pane(config: Config, project: Project) -> DeliverablePane:
    status = project.status()
    return DeliverablePane(
        draft=draft_under_review(project, status),
        progress=progress_of(project, status, plugin_for(config, status.deliverable_type)),
    )


def progress_of(project: Project, status: Status, plugin: Plugin) -> Progress:
    """`plugin` is the project's type: a document deliverable is read wherever its plugin keeps
    it (a deliverable that is the project's files is not a document)."""
    progress = Progress(final=status.phase is Phase.DONE)
    progress.build = _build_progress(project, progress.problems)
    if status.phase is Phase.BUILDING and is_running(project):
        progress.in_progress = next(
            (n for n, item in enumerate(progress.build) if not item.done), None
        )
    _add_polish(read_polish_record(project.dir), progress)
    document = plugin.deliverable_path(project.dir)
    if document.is_file():
        progress.deliverable = _read(document, progress.problems)
    trace = project.dir / TRACEABILITY_FILE
    if trace.is_file():
        progress.traceability = _read(trace, progress.problems)
    return progress


def _read(path: Path, problems: list[str]) -> str:
    """The file's text, never through a link an agent planted (that is a problem on the panel)."""
    try:
        return read_own_text(path)
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(str(exc)[:300])
        return ""


def _build_progress(project: Project, problems: list[str]) -> list[ProgressItem]:
    try:
        progress = read_build_progress(project.dir)
    except StateFileError as exc:
        problems.append(str(exc)[:300])
        return []
    return progress.items if progress else []


def _add_polish(record: PolishRecord, progress: Progress) -> None:
    progress.problems.extend(record.problems)
    if record.state is None:
        return
    progress.trajectory = [
        entry.model_dump(include={"iteration", *(s.value for s in Severity)})
        for entry in record.trajectory
    ]
    progress.costs = [
        IterationCost(
            iteration=entry.iteration,
            issues=f"{entry.critical} critical, {entry.medium} medium, {entry.minor} minor",
            cost="—" if entry.usd is None else usd(entry.usd),
        )
        for entry in record.trajectory
    ]
    heading = polish_heading(record.trajectory)
    progress.trend = heading.line if heading is not None else ""
    progress.polish_log = record.log_text
    last = record.last_iteration
    if last is not None:
        progress.guards, progress.verdict = last.guards, last.verdict
    if record.tracker is not None:
        progress.findings = _finding_rows(record.tracker, record.state.iteration)
    if record.state.completed and record.state.plateau:
        progress.still_open = [
            f"{i.severity}{f' ({i.location})' if i.location else ''}: {i.description}"
            for i in record.state.last_issues
        ]


def _finding_rows(tracker: FindingTracker, iteration: int) -> list[FindingRow]:
    shown = [*tracker.active, *(f for f in tracker.findings if f.status == "dismissed")]
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
