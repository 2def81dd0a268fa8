"""The code deliverable: the Open Source Discovery scorecard of Phase 2 (`scorecard`), the Plan
Completeness Gate at Code-mode entry (`plan_gate`), the test runner and its output parsers
(`test_runner`, `test_output`), and the Phase 3 stuck rules of the test-fix cycle (`stuck`).
The code builder that runs them on the shared engine is still to come (issue 13).
"""

from thoughtforge.plugins.code.plan_gate import (
    CompletenessVerdict,
    check_plan,
    completeness_prompt,
    find_plan,
    parse_verdict,
)
from thoughtforge.plugins.code.scorecard import (
    MIN_TOTAL,
    SIGNALS,
    Recommendation,
    RedFlag,
    Scorecard,
    Signal,
    validate_recommendations,
)
from thoughtforge.plugins.code.stuck import Stuck, StuckTracker
from thoughtforge.plugins.code.test_runner import TestRun, detect_language, run_tests

__all__ = [
    "MIN_TOTAL",
    "SIGNALS",
    "CompletenessVerdict",
    "Recommendation",
    "RedFlag",
    "Scorecard",
    "Signal",
    "Stuck",
    "StuckTracker",
    "TestRun",
    "check_plan",
    "completeness_prompt",
    "detect_language",
    "find_plan",
    "parse_verdict",
    "run_tests",
    "validate_recommendations",
]
