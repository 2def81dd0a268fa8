"""The value guard (`polish.min_issues_resolved_per_usd`) on labelled polish trajectories: how many
iterations (and dollars) it saves, and what it leaves open, against the same loop without it.

Each trajectory is what reviews found, iteration by iteration, with what each iteration cost, and
a label: the last iteration a person reading it would have paid for (`worth_until`). The loop is
replayed through the real guards (`evaluate`), once with the value guard off and once on.

Run: .venv/bin/python bench/bench_value_guard.py   (prints a Markdown table)
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from datetime import UTC, datetime

from thoughtforge.config import PolishConfig
from thoughtforge.core.state import TrajectoryEntry
from thoughtforge.models import Issue, Severity
from thoughtforge.phases.polish.finding_tracker import FindingTracker, after_fix, after_review
from thoughtforge.phases.polish.guards import GuardReport, evaluate
from thoughtforge.phases.polish.trajectory_guards import weighted

MAX_ITERATIONS = 20
THRESHOLD = 2.0
"""Severity-weighted issues resolved per dollar, over the window."""
WINDOW = 3


@dataclass(frozen=True)
class Labelled:
    name: str
    counts: list[tuple[int, int, int]]
    usd_per_iteration: float
    worth_until: int
    """The last iteration worth paying for, as a person reading the trajectory judges it."""


TRAJECTORIES = [
    Labelled("quick convergence", [(2, 5, 6), (1, 3, 4), (0, 2, 3)], 0.40, 3),
    Labelled(
        "long minor tail",
        [(1, 6, 9), (0, 5, 9), (0, 4, 8), *[(0, 4, 7), (0, 4, 8), (0, 4, 6)] * 6][:20],
        0.40,
        3,
    ),
    Labelled(
        "steady, expensive progress",
        [
            *[(5, 10, 10), (4, 9, 10), (4, 8, 9), (3, 7, 9), (3, 6, 8), (2, 5, 8)],
            *[(2, 4, 7), (1, 4, 6), (1, 3, 6), (0, 3, 5)],
        ],
        1.50,
        10,
    ),
    Labelled(
        "grind just above the thresholds",
        [(0, 6, 8), (0, 5, 7), *[(0, 5, 6), (0, 5, 7), (0, 4, 7), (0, 5, 6)] * 5][:20],
        0.40,
        2,
    ),
    Labelled(
        "cheap model, slow real progress",
        [(0, 3, 20 - n) for n in range(16)],
        0.01,
        16,
    ),
    Labelled(
        "late breakthrough",
        [(2, 6, 8), (2, 6, 7), (2, 6, 8), (2, 6, 7), (2, 5, 7), (2, 6, 7), (0, 2, 3)],
        0.40,
        7,
    ),
    Labelled(
        "critical issue never fixed",
        [(3, 4, 4), (2, 3, 3), *[(2, 3, 2), (2, 3, 3), (2, 2, 3)] * 6][:20],
        0.80,
        2,
    ),
]


@dataclass(frozen=True)
class Run:
    stopped_at: int
    verdict: str
    guard: str | None
    weighted_left: int
    usd: float


def replay(trajectory: Labelled, config: PolishConfig) -> Run:
    """Feed the iterations to the guards one by one until they stop the loop."""
    entries: list[TrajectoryEntry] = []
    report: GuardReport | None = None
    tracker = FindingTracker()
    for n, (critical, medium, minor) in enumerate(trajectory.counts, start=1):
        entries.append(
            TrajectoryEntry(
                iteration=n,
                critical=critical,
                medium=medium,
                minor=minor,
                total=critical + medium + minor,
                fix_applied=True,
                timestamp=datetime(2026, 11, 26, tzinfo=UTC),
                usd=trajectory.usd_per_iteration,
                fix="changed",
                version=f"v{n}",
            )
        )
        tracker = after_review(tracker, n, _issues(n, entries[-1]), [])
        report = evaluate(entries, tracker, config)
        tracker = after_fix(tracker, n, None)
        if report.verdict != "continue":
            break
    assert report is not None
    last = entries[-1]
    return Run(
        stopped_at=last.iteration,
        verdict=report.verdict if report.verdict == "done" else f"halt ({report.halt_reason})",
        guard=report.guard,
        weighted_left=weighted(last),
        usd=trajectory.usd_per_iteration * last.iteration,
    )


def _issues(n: int, entry: TrajectoryEntry | None) -> list[Issue]:
    """Issues that differ from one iteration to the next (they rotate: no persistence)."""
    if entry is None:
        return []
    return [
        Issue(severity=severity, description=f"finding {n}-{severity.value}-{k} of iteration {n}")
        for severity in Severity
        for k in range(getattr(entry, severity.value))
    ]


def table() -> str:
    off = PolishConfig(max_iterations=MAX_ITERATIONS)
    on = off.model_copy(update={"min_issues_resolved_per_usd": THRESHOLD, "value_window": WINDOW})
    lines = [
        f"value guard: {THRESHOLD:g} weighted issues per dollar over {WINDOW} iterations; "
        f"max_iterations {MAX_ITERATIONS}",
        "",
        "| trajectory | $/iter | worth until | without: stop · verdict · left | "
        "with: stop · verdict · left | iterations saved | $ saved | extra left |",
        "| --- | ---: | ---: | --- | --- | ---: | ---: | ---: |",
    ]
    saved_total = 0
    for trajectory in TRAJECTORIES:
        plain, guarded = replay(trajectory, off), replay(trajectory, on)
        saved = plain.stopped_at - guarded.stopped_at
        saved_total += saved
        lines.append(
            f"| {trajectory.name} | {trajectory.usd_per_iteration:.2f} | "
            f"{trajectory.worth_until} | {plain.stopped_at} · {plain.verdict} · "
            f"{plain.weighted_left} | {guarded.stopped_at} · {guarded.verdict} · "
            f"{guarded.weighted_left} | {saved} | {plain.usd - guarded.usd:.2f} | "
            f"{guarded.weighted_left - plain.weighted_left} |"
        )
    lines.append("")
    lines.append(f"iterations saved in all: {saved_total}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.stdout.write(table() + "\n")
