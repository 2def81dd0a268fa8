"""After an iteration's review and fix: its trajectory entry, the guards' verdict, the new state.

Pure: the state of iteration N is a function of the state of N−1, the review and the fix, so the
loop's verdict can be recomputed from the files alone.
"""

from __future__ import annotations

from pydantic import BaseModel

from thoughtforge.config import PolishConfig
from thoughtforge.core.spend.ledger import Spend
from thoughtforge.core.state import PolishState, TrajectoryEntry, utc_now
from thoughtforge.models import Counts
from thoughtforge.phases.polish.finding_tracker import FindingTracker, after_fix
from thoughtforge.phases.polish.guards import GuardReport, evaluate
from thoughtforge.phases.polish.step_results import FixResult, StoredReview


class Assessment(BaseModel):
    state: PolishState
    report: GuardReport
    entry: TrajectoryEntry
    tracker: FindingTracker
    """The findings once the review and the fix are taken in."""


def assess(
    previous: PolishState,
    reviewed: FindingTracker,
    review: StoredReview,
    fix: FixResult,
    config: PolishConfig,
    spend: Spend | None = None,
) -> Assessment:
    """The trajectory entry, guard report, new state and tracker after iteration
    `review.iteration`; `reviewed` is the tracker once that review was taken in (`after_review`);
    `spend` is what the iteration's agent calls used (`usage.json`)."""
    n = review.iteration
    counts = Counts.of(review.issues)
    entry = TrajectoryEntry(
        iteration=n,
        **counts.model_dump(),
        total=counts.total,
        fix_applied=fix.applied,
        timestamp=utc_now(),
        fix=fix.outcome,
        restored=fix.restored,
        version=review.version,
        usd=_priced(spend),
        tokens=None if spend is None else spend.tokens,
    )
    trajectory = [*previous.trajectory, entry]
    tests_passed = None if review.tests is None else review.tests.failed == 0
    report = evaluate(trajectory, reviewed, config, tests_passed, fix.summary)
    versions = dict(previous.versions)
    if review.version is not None:
        versions.setdefault(review.version, max(n - 1, 0))
    if fix.version is not None:
        versions.setdefault(fix.version, n)
    state = PolishState(
        iteration=n,
        counts=counts,
        trajectory=trajectory,
        tests_passed=tests_passed,
        completed=report.verdict == "done",
        halt_reason=report.halt_reason,
        last_issues=review.issues,
        versions=versions,
        plateau=report.verdict == "done" and report.guard in ("stagnation", "value"),
    )
    tracker = after_fix(
        reviewed, n, fix.changed_places, fix.every_place, fix.place_versions, fix.documents
    )
    return Assessment(state=state, report=report, entry=entry, tracker=tracker)


def _priced(spend: Spend | None) -> float | None:
    """The iteration's cost, unless none of its calls had a price."""
    if spend is None or (spend.calls and spend.unpriced_calls == spend.calls):
        return None
    return round(spend.usd, 6)
