"""The code deliverable: Phase 2's Open Source Discovery (`discovery`, `scorecard`), Phase 3's
builder (`builder`: the Plan Completeness Gate of `plan_gate`, ordered steps, the test-fix cycle
with the stuck rules of `stuck`, its progress in `build_state`), the run of the project's test
suite (`suite_run`) and its output parsers (`test_output`), the locked acceptance tests
(`acceptance`), Phase 4's review and fix steps (`polish`, with the context of `context`), the
safety rules (`safety`).
"""

from thoughtforge.plugins.code.builder import CodeBuilder
from thoughtforge.plugins.code.context import FixContext, ReviewContext, fix_context, review_context
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
from thoughtforge.plugins.code.suite_run import TestRun, detect_language, run_tests

__all__ = [
    "MIN_TOTAL",
    "SIGNALS",
    "CodeBuilder",
    "CompletenessVerdict",
    "FixContext",
    "Recommendation",
    "RedFlag",
    "ReviewContext",
    "Scorecard",
    "Signal",
    "Stuck",
    "StuckTracker",
    "TestRun",
    "check_plan",
    "completeness_prompt",
    "detect_language",
    "find_plan",
    "fix_context",
    "parse_verdict",
    "review_context",
    "run_tests",
    "validate_recommendations",
]
