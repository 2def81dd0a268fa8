"""After an iteration's review and fix: its trajectory entry, the guards' verdict, the new state.

Pure: the state of iteration N is a function of the state of N−1, the review and the fix, so the
loop's verdict can be recomputed from the files alone.
"""

from __future__ import annotations

from pydantic import BaseModel

from thoughtforge.config import PolishConfig
from thoughtforge.core import PolishState, TrajectoryEntry, utc_now
from thoughtforge.models import Counts
from thoughtforge.phases.polish.guards import GuardReport, evaluate
from thoughtforge.phases.polish.iteration import FixResult, StoredReview


class Assessment(BaseModel):
    state: PolishState
    report: GuardReport
    entry: TrajectoryEntry


def assess(
    previous: PolishState, review: StoredReview, fix: FixResult, config: PolishConfig
) -> Assessment:
    """The trajectory entry, guard report and new state after iteration `review.iteration`."""
    counts = Counts.of(review.issues)
    entry = TrajectoryEntry(
        iteration=review.iteration,
        **counts.model_dump(),
        total=counts.total,
        fix_applied=fix.applied,
        timestamp=utc_now(),
    )
    trajectory = [*previous.trajectory, entry]
    tests_passed = None if review.tests is None else review.tests.failed == 0
    report = evaluate(trajectory, review.issues, previous.last_issues, config, tests_passed)
    state = PolishState(
        iteration=review.iteration,
        counts=counts,
        trajectory=trajectory,
        tests_passed=tests_passed,
        completed=report.verdict == "done",
        halt_reason=report.halt_reason,
        last_issues=review.issues,
    )
    return Assessment(state=state, report=report, entry=entry)
