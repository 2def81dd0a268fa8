"""Phase 4 convergence guards: after each iteration, decide whether the polish loop goes on.

Pure functions of the trajectory, the last two reviews' issues and the config, so a verdict can be
recomputed from `polish_state.json` alone. The guards run in the order DESIGN.md fixes and the first
one that triggers decides; every guard that ran leaves a line for `polish_log.md`. Ratio thresholds
are compared in integers, so a rise of exactly 20 % or 50 % is never pushed over by rounding.

Stagnation's issue matching, the only costly part, is `issue_matching`; the six guards read top
to bottom in the order `evaluate` runs them, over the one `_Iteration` view they share.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel

from thoughtforge.config import PolishConfig
from thoughtforge.core import TrajectoryEntry
from thoughtforge.models import Counts, HaltReason, Issue, Severity

Verdict = Literal["continue", "done", "halt"]

_FABRICATION_WINDOW = 3


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


@dataclass(frozen=True)
class _Iteration:
    """Everything the guards look at; `entries[-1]` is the iteration just completed."""

    entries: list[TrajectoryEntry]
    current_issues: list[Issue]
    previous_issues: list[Issue]
    config: PolishConfig
    tests_passed: bool | None

    @property
    def totals(self) -> list[int]:
        return [entry.total for entry in self.entries]

    @property
    def last(self) -> TrajectoryEntry:
        return self.entries[-1]


_Guard = Callable[[_Iteration], tuple[bool, str]]


def evaluate(
    trajectory: list[TrajectoryEntry],
    current_issues: list[Issue],
    previous_issues: list[Issue],
    config: PolishConfig,
    tests_passed: bool | None = None,
) -> GuardReport:
    """Run the guards in order; `tests_passed` is None in plan mode."""
    if not trajectory:
        raise ValueError("the trajectory must end with the iteration just completed")
    it = _Iteration(trajectory, current_issues, previous_issues, config, tests_passed)
    warnings = [warning] if (warning := _regression_warning(it)) else []
    results: list[GuardResult] = []
    for name, verdict, halt_reason, guard in _GUARDS:
        triggered, detail = guard(it)
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
        reason=f"iteration {it.last.iteration}: {describe(_counts(it.last))}; no guard triggered",
        warnings=warnings,
        results=results,
    )


def describe(counts: Counts) -> str:
    """Counts as the log and commit messages show them, e.g. `1 critical, 2 medium, 0 minor`."""
    return f"{counts.critical} critical, {counts.medium} medium, {counts.minor} minor"


def _fix_regression(it: _Iteration) -> tuple[bool, str]:
    totals = it.totals
    if not _fix_raised(it.entries):
        return False, f"no fix raised the total (last totals: {_arrow(totals[-3:])})"
    if not _fix_raised(it.entries[:-1]):
        return False, f"single rise {totals[-2]}→{totals[-1]}: warning only"
    return True, (
        "Fix step is introducing more issues than it resolves. Review needed. "
        f"Total rose {_arrow(totals[-3:])} after the fixes of iterations "
        f"{it.entries[-3].iteration} and {it.entries[-2].iteration}."
    )


def _regression_warning(it: _Iteration) -> str | None:
    """A single rise is worth a line in the log; the second one in a row halts instead."""
    if not _fix_raised(it.entries) or _fix_raised(it.entries[:-1]):
        return None
    before, after = it.entries[-2], it.last
    return (
        f"fix of iteration {before.iteration} raised the total from {before.total} to "
        f"{after.total}; another rise in a row halts the loop"
    )


def _fix_raised(entries: list[TrajectoryEntry]) -> bool:
    """The last review scores the fix before it; a fix that was not applied changed nothing."""
    if len(entries) < 2:
        return False
    before, after = entries[-2], entries[-1]
    return before.fix_applied and after.total > before.total


def _termination(it: _Iteration) -> tuple[bool, str]:
    counts = _counts(it.last)
    misses = _over_limits(counts, it.config, factor=1)
    if it.tests_passed is False:
        misses.append("tests failing")
    if misses:
        return False, "not converged: " + ", ".join(misses)
    tests = "" if it.tests_passed is None else " All tests pass."
    return True, f"polish loop converged. {describe(counts)}.{tests}"


def _hallucination(it: _Iteration) -> tuple[bool, str]:
    totals = it.totals
    if len(totals) < 2:
        return False, "first iteration: no previous total"
    run = _decreasing_run(totals[:-1])
    previous, current = totals[-2], totals[-1]
    spiked = current * 5 > previous * 6
    if not spiked or len(run) < 3:
        decreases = len(run) - 1
        return False, f"total {previous}→{current} after {decreases} consecutive decrease(s)"
    return True, (
        f"fix-regress cycle detected. Errors trending down ({_arrow(run)}) then spiked to "
        f"{current} at iteration {it.last.iteration}."
    )


def _decreasing_run(totals: list[int]) -> list[int]:
    """The strictly decreasing stretch that ends at the last total."""
    start = len(totals) - 1
    while start > 0 and totals[start - 1] > totals[start]:
        start -= 1
    return totals[start:]


def _fabrication(it: _Iteration) -> tuple[bool, str]:
    window = it.entries[-1 - _FABRICATION_WINDOW : -1]
    if not window:
        return False, "first iteration: no trailing average"
    spikes = [spike for severity in Severity if (spike := _spike(it.last, window, severity))]
    if not spikes:
        return False, f"no severity spiked against the last {len(window)} iteration(s)"
    spiked = "; ".join(spikes)
    near = _last_near_convergence(it)
    if near is None:
        return False, f"{spiked}, but no earlier iteration was within twice the thresholds"
    return True, (
        f"fabrication suspected at iteration {it.last.iteration}. Errors were near-converged "
        f"({describe(_counts(near))}) at iteration {near.iteration} then spiked: {spiked}. "
        "The reviewer may be manufacturing issues because nothing real remains."
    )


def _spike(entry: TrajectoryEntry, window: list[TrajectoryEntry], severity: Severity) -> str | None:
    """count > 1.5 × average and count − average ≥ 2, multiplied out by 2·len(window)."""
    count = getattr(entry, severity.value)
    size, past = len(window), sum(getattr(e, severity.value) for e in window)
    if count * size * 2 > past * 3 and count * size - past >= 2 * size:
        return f"{severity.value} {count} vs trailing average {_number(past / size)}"
    return None


def _last_near_convergence(it: _Iteration) -> TrajectoryEntry | None:
    """The latest earlier iteration within twice every threshold (the spec hard-codes the 2×)."""
    for entry in reversed(it.entries[:-1]):
        if not _over_limits(_counts(entry), it.config, factor=2):
            return entry
    return None


def _stagnation(it: _Iteration) -> tuple[bool, str]:
    limit, totals = it.config.stagnation_limit, it.totals
    recent = totals[-limit:]
    if len(recent) < limit or len(set(recent)) > 1:
        return False, f"no plateau: last totals {_arrow(recent)}, need {limit} equal"
    from thoughtforge.phases.polish.issue_matching import tally_matches  # rapidfuzz: on a plateau

    tally = tally_matches(it.current_issues, it.previous_issues)
    if tally.persists:
        return False, f"total stuck at {totals[-1]} but the same issues persist ({tally.share})"
    return True, (
        f"polish sufficient: total stuck at {totals[-1]} ({describe(_counts(it.last))}) for "
        f"{limit} iterations while issues rotate ({tally.share})."
    )


def _max_iterations(it: _Iteration) -> tuple[bool, str]:
    ceiling = it.config.max_iterations
    if it.last.iteration < ceiling:
        return False, f"iteration {it.last.iteration} of {ceiling}"
    average = sum(it.totals) / len(it.totals)
    lowest = min(reversed(it.entries), key=lambda entry: entry.total)
    return True, (
        f"Max {ceiling} iterations reached. Avg flaws/iter: {_number(average)}. "
        f"Lowest: {lowest.total} at iter {lowest.iteration}."
    )


def _over_limits(counts: Counts, config: PolishConfig, factor: int) -> list[str]:
    limits = {
        Severity.CRITICAL: config.critical_max,
        Severity.MEDIUM: config.medium_max,
        Severity.MINOR: config.minor_max,
    }
    return [
        f"{getattr(counts, s.value)} {s.value} > {limit * factor}"
        for s, limit in limits.items()
        if getattr(counts, s.value) > limit * factor
    ]


def _counts(entry: TrajectoryEntry) -> Counts:
    return Counts(critical=entry.critical, medium=entry.medium, minor=entry.minor)


def _arrow(totals: list[int]) -> str:
    return "→".join(str(total) for total in totals)


def _number(value: float) -> str:
    return f"{value:.1f}".removesuffix(".0")


_GUARDS: tuple[tuple[str, Verdict, HaltReason | None, _Guard], ...] = (
    ("fix_regression", "halt", HaltReason.GUARD_FIX_REGRESSION, _fix_regression),
    ("termination", "done", None, _termination),
    ("hallucination", "halt", HaltReason.GUARD_HALLUCINATION, _hallucination),
    ("fabrication", "halt", HaltReason.GUARD_FABRICATION, _fabrication),
    ("stagnation", "done", None, _stagnation),
    ("max_iterations", "halt", HaltReason.GUARD_MAX_ITERATIONS, _max_iterations),
)
