"""Phase 4 for a plan: the review schema; the review and fix steps are the shared document steps
(`phases.polish.iteration.PolishSteps`) over `docs/plan.md` with `plan-review` and `plan-fix`."""

from thoughtforge.phases.polish.review import PlanReview as Review

__all__ = ["Review"]
