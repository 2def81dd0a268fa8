"""Where a polish run is heading, as `status` and the polish panel say it."""

from __future__ import annotations

from datetime import UTC, datetime

from thoughtforge.board.heading import polish_heading
from thoughtforge.core.state import TrajectoryEntry

AT = datetime(2026, 12, 6, tzinfo=UTC)


def _entries(*totals: int, usd: float | None = None) -> list[TrajectoryEntry]:
    return [
        TrajectoryEntry(
            iteration=n,
            critical=0,
            medium=total,
            minor=0,
            total=total,
            fix_applied=True,
            timestamp=AT,
            usd=usd,
        )
        for n, total in enumerate(totals, start=1)
    ]


def test_no_heading_before_the_first_iteration() -> None:
    assert polish_heading([]) is None


def test_one_review_is_a_start() -> None:
    heading = polish_heading(_entries(5, usd=0.25))
    assert heading is not None
    assert heading.line == "starting: one review so far; the last iteration cost $0.25"


def test_a_falling_total_over_the_window_is_converging_whatever_came_before() -> None:
    heading = polish_heading(_entries(2, 9, 6, 4))
    assert heading is not None and heading.heading == "converging"
    assert (
        heading.line == "converging: 9 → 6 → 4 issues over iterations 2–4 (the reviewer's counts)"
    )


def test_a_total_that_ends_where_it_began_is_stuck_and_a_rising_one_diverging() -> None:
    stuck, rising = polish_heading(_entries(4, 3, 4)), polish_heading(_entries(3, 5))
    assert stuck is not None and stuck.heading == "stuck"
    assert rising is not None and rising.heading == "diverging"
