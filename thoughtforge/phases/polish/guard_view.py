"""What every convergence guard looks at (`Seen`), and the small helpers they share: counts
against the thresholds, and how the log writes counts, totals and versions."""

from __future__ import annotations

from dataclasses import dataclass

from thoughtforge.config import PolishConfig
from thoughtforge.core.state import FixOutcome, TrajectoryEntry
from thoughtforge.models import Counts, Severity
from thoughtforge.phases.polish.finding_tracker import FindingTracker


@dataclass(frozen=True)
class Seen:
    """Everything the guards look at; `entries[-1]` is the iteration just completed, and
    `tracker` holds the findings once its review was taken in."""

    entries: list[TrajectoryEntry]
    tracker: FindingTracker
    config: PolishConfig
    tests_passed: bool | None
    fix_note: str

    @property
    def totals(self) -> list[int]:
        return [entry.total for entry in self.entries]

    @property
    def last(self) -> TrajectoryEntry:
        return self.entries[-1]


def describe(counts: Counts) -> str:
    """Counts as the log and commit messages show them, e.g. `1 critical, 2 medium, 0 minor`."""
    return f"{counts.critical} critical, {counts.medium} medium, {counts.minor} minor"


def version_name(iteration: int | None) -> str:
    """A version of the deliverable by the fix that made it."""
    if not iteration:
        return "the version polishing began with"
    return f"the version fix #{iteration} made"


def counts(entry: TrajectoryEntry) -> Counts:
    return Counts(critical=entry.critical, medium=entry.medium, minor=entry.minor)


def over_limits(found: Counts, config: PolishConfig, factor: int) -> list[str]:
    limits = {
        Severity.CRITICAL: config.critical_max,
        Severity.MEDIUM: config.medium_max,
        Severity.MINOR: config.minor_max,
    }
    return [
        f"{getattr(found, s.value)} {s.value} > {limit * factor}"
        for s, limit in limits.items()
        if getattr(found, s.value) > limit * factor
    ]


def over(seen: Seen) -> list[str]:
    """What keeps the last review from converging: counts over the thresholds, failing tests."""
    misses = over_limits(counts(seen.last), seen.config, factor=1)
    if seen.tests_passed is False:
        misses.append("tests failing")
    return misses


def fix_of(entry: TrajectoryEntry) -> FixOutcome:
    """What the fix did; in a state written before `fix` existed, `fix_applied` is all there is
    (and what was not applied is not held against the fixer)."""
    if entry.fix is not None:
        return entry.fix
    return "changed" if entry.fix_applied else "none"


def arrow(totals: list[int]) -> str:
    return "→".join(str(total) for total in totals)


def number(value: float) -> str:
    return f"{value:.1f}".removesuffix(".0")


def open_counts(seen: Seen) -> Counts:
    """The active findings, each counted at the severity the tracker holds for it (a silent
    review leaves them open)."""
    return Counts.of([f.as_issue() for f in seen.tracker.active])
