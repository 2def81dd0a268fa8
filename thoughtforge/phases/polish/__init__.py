"""Phase 4: the polish loop (`loop` drives, `iteration` reviews/fixes/commits, `step_results` what
those steps give back, `assessment` asks the convergence `guards`). The guards read the trajectory
and the `tracker` of findings (whose identities `issue_matching`, `issue_wording` and `places`
decide): `findings_guards` (termination, contradiction, rotation, persistence) and
`trajectory_guards` (the fixer's outcomes and the review's counts, iteration by iteration), over
the view they share (`guard_view`). Also the review schema and how answers are
read (`review`) and the human-readable `polish_log`. What a fix must be is the plugin's validator's
to say (`phases.deliverable`).

Imports the shared engine (`thoughtforge.phases.engine`), `prompting`, `core` and the vocabulary.
"""

from thoughtforge.phases.polish.guards import GuardReport, GuardResult, describe, evaluate
from thoughtforge.phases.polish.loop import PolishLoop, PolishOutcome
from thoughtforge.phases.polish.review import (
    CodeReview,
    MalformedReview,
    PlanReview,
    TestResults,
    parse_review,
)

__all__ = [
    "CodeReview",
    "GuardReport",
    "GuardResult",
    "MalformedReview",
    "PlanReview",
    "PolishLoop",
    "PolishOutcome",
    "TestResults",
    "describe",
    "evaluate",
    "parse_review",
]
