"""Phase 4 for code: the review schema (the issues and the tests as measured) and the steps that
run the tests before each review and let the coding agent fix the files (`polish`)."""

from thoughtforge.phases.polish.review import CodeReview as Review
from thoughtforge.plugins.code.polish import PolishSteps

__all__ = ["PolishSteps", "Review"]
