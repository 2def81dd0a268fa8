from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from thoughtforge.core.state import TrajectoryEntry
from thoughtforge.phases.polish.trajectory_chart import trajectory_chart

GOLDEN = Path(__file__).parents[2] / "golden" / "trajectory_chart.md"


def _entry(
    n: int, critical: int, medium: int, minor: int, usd: float | None = None
) -> TrajectoryEntry:
    return TrajectoryEntry(
        iteration=n,
        critical=critical,
        medium=medium,
        minor=minor,
        total=critical + medium + minor,
        fix_applied=critical + medium + minor > 0,
        timestamp=datetime(2026, 11, 23, tzinfo=UTC),
        usd=usd,
    )


def test_the_chart_matches_its_golden_file() -> None:
    """Each iteration's cost beside its counts; `—` where no price was known."""
    chart = trajectory_chart(
        [_entry(1, 2, 5, 3, 0.4213), _entry(2, 0, 3, 2, 0.0031), _entry(3, 0, 0, 0)]
    )
    assert chart == GOLDEN.read_text()


def test_an_empty_trajectory_says_so() -> None:
    assert trajectory_chart([]) == "No iteration has been recorded yet."
