"""The simulator's one coupling to ThoughtForge: every decision of a polish iteration is made
here by the real modules, called as `phases.polish.loop.PolishLoop._iteration` and
`phases.polish.iteration.PolishSteps` call them, without Prefect, git or files.

Re-point this module (and only this one) when the loop's seams move:

* the review: `review.parse_review` on the reviewer's raw text (re-asked up to
  `polish.retry_malformed_output` times, then `review_malformed`, as `PhaseEngine.ask_until_usable`
  does), then `still_standing` and `merge_duplicates`, as `PolishSteps.review`;
* the tracker: `tracker.after_review`, and the loop's `_with_silent_findings` (what the fixer is
  given);
* the fix: the plan plugin's validator (`plugins.plan.validation.check_plan` with the template the
  plan was built from), then `step_results.fix_result` (outcome, places, versions), as
  `PolishSteps.fix`; a refused fix is kept as it was, as `PolishSteps.refuse`;
* the verdict: `assessment.assess` (the trajectory entry, every guard, the new state and tracker),
  then the plugin's `before_done` (a plan's: nothing).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from thoughtforge.config import PolishConfig
from thoughtforge.core.state import PolishState
from thoughtforge.errors import UnusableReply
from thoughtforge.models import Issue
from thoughtforge.phases.deliverable.verdict import Candidate
from thoughtforge.phases.polish.assessment import Assessment, assess
from thoughtforge.phases.polish.finding_tracker import Finding, FindingTracker, after_review
from thoughtforge.phases.polish.loop import _with_silent_findings
from thoughtforge.phases.polish.review import (
    PlanReview,
    merge_duplicates,
    parse_review,
    prompt_echoes,
    still_standing,
)
from thoughtforge.phases.polish.step_results import FixResult, StoredReview, fix_result, version_of
from thoughtforge.plugins.plan.template import PlanTemplate, load_template
from thoughtforge.plugins.plan.validation import check_plan

TEMPLATES = Path(__file__).resolve().parents[2] / "thoughtforge" / "plugins" / "plan" / "templates"
PROMPT = Path(__file__).resolve().parents[2] / "thoughtforge" / "prompts" / "plan-review.md"
DOCUMENT = "docs/plan.md"
ECHOES = prompt_echoes(PROMPT.read_text(encoding="utf-8"), PlanReview)


def config() -> PolishConfig:
    """The polish section as a new project gets it (the thresholds under test)."""
    return PolishConfig()


@cache
def template(name: str) -> PlanTemplate:
    return load_template(TEMPLATES / f"{name}.hbs")


@dataclass(frozen=True)
class ReadReview:
    """A review as the loop takes it in, or why there is none (`review_malformed`)."""

    review: StoredReview | None
    asked: int
    """How many answers were asked for (re-asks included)."""
    refusal: str = ""


def read_review(answer: Callable[[int], str], n: int, document: str, retries: int) -> ReadReview:
    """Ask for the review (`answer(attempt)` is the reviewer's raw text), re-asking an unusable
    answer `retries` times, then read it as `PolishSteps.review` does."""
    why = ""
    for attempt in range(retries + 1):
        try:
            parsed = parse_review(answer(attempt), PlanReview, ECHOES)
        except UnusableReply as exc:
            why = str(exc)
            continue
        standing, _ = still_standing(parsed.issues)
        issues, merged = merge_duplicates(standing)
        review = StoredReview(
            iteration=n,
            issues=issues,
            version=version_of(document),
            merged=merged,
            dismissed=parsed.dismissed,
        )
        return ReadReview(review, attempt + 1)
    return ReadReview(None, retries + 1, why)


def take_review(
    tracker: FindingTracker, review: StoredReview
) -> tuple[FindingTracker, list[Issue]]:
    """The tracker once the review is in, and the issues the fixer is given."""
    reviewed = after_review(tracker, review.iteration, review.issues, review.dismissed)
    return reviewed, _with_silent_findings(review, reviewed).issues


def no_fix() -> FixResult:
    """A clean review's fix (`PolishSteps.previous_fix`)."""
    return FixResult(outcome="none", summary="none needed: the review found no issues")


def judge_fix(
    state: PolishState, old: str, answer: str, plan_template: PlanTemplate
) -> tuple[FixResult, str]:
    """What the loop makes of a fixer's answer: the fix's result and the deliverable after it."""
    verdict = check_plan(Candidate(stage="fix", text=answer, previous=old), plan_template)
    if not verdict.accepted:
        refused = f"refused: {verdict.reason}; kept the previous version"
        return FixResult(outcome="refused", summary=refused), old
    result = fix_result(state, old, verdict.document, DOCUMENT, verdict.stripped_note)
    return result, old if result.outcome == "unchanged" else verdict.document + "\n"


def judge(
    state: PolishState,
    reviewed: FindingTracker,
    review: StoredReview,
    fix: FixResult,
    cfg: PolishConfig,
) -> Assessment:
    """The guards' verdict on the iteration (no price: the value guard is off by default)."""
    return assess(state, reviewed, review, fix, cfg)


def shown(tracker: FindingTracker) -> list[Finding]:
    """The open findings the next review is shown."""
    return tracker.active
