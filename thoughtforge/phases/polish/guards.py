"""Phase 4 convergence guards: after each iteration, decide whether the polish loop goes on.

Pure functions of the trajectory, the finding tracker (`tracker`) and the config, so a verdict
can be recomputed from the state files alone. The guards run in the order below and the first
one that triggers decides; every guard that ran leaves a line for `polish_log.md`.

Termination comes second, right after the regression check: a converged review ends the loop
whatever its fix did, but only with evidence (`findings_guards`). A reviewer that contradicts
itself about an unchanged place halts next. Three guards then watch the fixer's outcomes
(`trajectory_guards`): two refused fixes in a row, fixes that leave the deliverable as it was,
fixes that keep restoring earlier versions. Then the counts' trajectory (`trajectory_guards`),
the findings' plateau (`findings_guards`: rotation ends `done`, persistence halts) and the
iteration ceiling.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel

from thoughtforge.config import PolishConfig
from thoughtforge.core.state import TrajectoryEntry
from thoughtforge.models import HaltReason
from thoughtforge.phases.polish import findings_guards, trajectory_guards
from thoughtforge.phases.polish.finding_tracker import FindingTracker
from thoughtforge.phases.polish.guard_view import Seen, counts, describe, version_name

__all__ = ["GuardReport", "GuardResult", "describe", "evaluate", "version_name"]

Verdict = Literal["continue", "done", "halt"]


class GuardResult(BaseModel):
    """One guard's finding; `triggered` means this guard decided the verdict."""

    name: str
    triggered: bool
    detail: str


class GuardReport(BaseModel):
    verdict: Verdict
    guard: str | None = None
    halt_reason: HaltReason | None = None
    reason: str
    warnings: list[str] = []
    results: list[GuardResult] = []


_Guard = Callable[[Seen], tuple[bool, str]]


def evaluate(
    trajectory: list[TrajectoryEntry],
    tracker: FindingTracker,
    config: PolishConfig,
    tests_passed: bool | None = None,
    fix_note: str = "",
) -> GuardReport:
    """Run the guards in order; `tracker` has taken in the last review; `tests_passed` is None in
    plan mode; `fix_note` is what the last fix did, in the log's words (quoted when the fixer's
    guards halt)."""
    if not trajectory:
        raise ValueError("the trajectory must end with the iteration just completed")
    seen = Seen(trajectory, tracker, config, tests_passed, fix_note)
    warning = trajectory_guards.regression_warning(seen)
    warnings = [warning] if warning else []
    results: list[GuardResult] = []
    for name, verdict, halt_reason, guard in _GUARDS:
        triggered, detail = guard(seen)
        results.append(GuardResult(name=name, triggered=triggered, detail=detail))
        if triggered:
            return GuardReport(
                verdict=verdict,
                guard=name,
                halt_reason=halt_reason,
                reason=detail,
                warnings=warnings,
                results=results,
            )
    return GuardReport(
        verdict="continue",
        reason=(
            f"iteration {seen.last.iteration}: {describe(counts(seen.last))}; no guard triggered"
        ),
        warnings=warnings,
        results=results,
    )


_GUARDS: tuple[tuple[str, Verdict, HaltReason | None, _Guard], ...] = (
    ("fix_regression", "halt", HaltReason.GUARD_FIX_REGRESSION, trajectory_guards.fix_regression),
    ("termination", "done", None, findings_guards.termination),
    ("contradiction", "halt", HaltReason.GUARD_ISSUES_PERSIST, findings_guards.contradiction),
    (
        "fix_output_invalid",
        "halt",
        HaltReason.FIX_OUTPUT_INVALID,
        trajectory_guards.fix_output_invalid,
    ),
    ("fix_unchanged", "halt", HaltReason.GUARD_FIX_UNCHANGED, trajectory_guards.fix_unchanged),
    ("fix_circular", "halt", HaltReason.GUARD_FIX_CIRCULAR, trajectory_guards.fix_circular),
    ("hallucination", "halt", HaltReason.GUARD_HALLUCINATION, trajectory_guards.hallucination),
    ("fabrication", "halt", HaltReason.GUARD_FABRICATION, trajectory_guards.fabrication),
    ("value", "done", None, trajectory_guards.value_done),
    ("low_value", "halt", HaltReason.GUARD_LOW_VALUE, trajectory_guards.value_halt),
    ("stagnation", "done", None, findings_guards.stagnation),
    ("persistence", "halt", HaltReason.GUARD_ISSUES_PERSIST, findings_guards.persistence),
    ("max_iterations", "halt", HaltReason.GUARD_MAX_ITERATIONS, trajectory_guards.max_iterations),
)
