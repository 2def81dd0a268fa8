"""Phase 4 convergence guards: after each iteration, decide whether the polish loop goes on.

Pure functions of the trajectory, the last two reviews' issues and the config, so a verdict can be
recomputed from `polish_state.json` alone. The guards run in the order the spec fixes and the first
one that triggers decides; every guard that ran leaves a line for `polish_log.md`. Ratio thresholds
are compared in integers, so a rise of exactly 20 % or 50 % is never pushed over by rounding.

A plateau whose issues persist (stagnation's other half) halts once it has lasted twice the
stagnation limit, naming the issues, instead of running to the iteration ceiling. Three guards
watch the fixer rather than the counts, right after termination (a converged review
ends the loop whatever its fix did): two refused fixes in a row, fixes that leave the deliverable
as it was, and fixes that keep restoring earlier versions each halt with their own reason, long
before the iteration ceiling. And a clean review is trusted only when earned: if an earlier review
found critical or medium issues in the very same version, a second review must agree.

Stagnation's issue matching, the only costly part, is `issue_matching`; the six guards read top
to bottom in the order `evaluate` runs them, over the one `_Iteration` view they share.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel

from thoughtforge.config import PolishConfig
from thoughtforge.core import FixOutcome, TrajectoryEntry
from thoughtforge.core.budget import usd
from thoughtforge.models import Counts, HaltReason, Issue, Severity

Verdict = Literal["continue", "done", "halt"]

SEVERITY_WEIGHTS = {Severity.CRITICAL: 5, Severity.MEDIUM: 2, Severity.MINOR: 1}
"""How much resolving an issue is worth to the value guard, by severity."""
_FABRICATION_WINDOW = 3
_CIRCULAR_WINDOW = 4
"""Two fixes among the last four that restore an earlier version: the fixer goes in circles."""


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
    second_review_of: int | None = None
    """Set when a clean review needs a second one: the iteration whose review found critical or
    medium issues in the same version."""


@dataclass(frozen=True)
class _Iteration:
    """Everything the guards look at; `entries[-1]` is the iteration just completed."""

    entries: list[TrajectoryEntry]
    current_issues: list[Issue]
    previous_issues: list[Issue]
    config: PolishConfig
    tests_passed: bool | None
    fix_note: str

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
    fix_note: str = "",
) -> GuardReport:
    """Run the guards in order; `tests_passed` is None in plan mode; `fix_note` is what the
    last fix did, in the log's words (quoted when the fixer's guards halt)."""
    if not trajectory:
        raise ValueError("the trajectory must end with the iteration just completed")
    seen = _Iteration(trajectory, current_issues, previous_issues, config, tests_passed, fix_note)
    warnings = [warning] if (warning := _regression_warning(seen)) else []
    unconfirmed = _unconfirmed_clean_review(seen)
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
            f"iteration {seen.last.iteration}: {describe(_counts(seen.last))}; no guard triggered"
        ),
        warnings=warnings,
        results=results,
        second_review_of=unconfirmed.iteration if unconfirmed and not _over(seen) else None,
    )


def describe(counts: Counts) -> str:
    """Counts as the log and commit messages show them, e.g. `1 critical, 2 medium, 0 minor`."""
    return f"{counts.critical} critical, {counts.medium} medium, {counts.minor} minor"


def _fix_regression(seen: _Iteration) -> tuple[bool, str]:
    totals = seen.totals
    if not _fix_raised(seen.entries):
        return False, f"no fix raised the total (last totals: {_arrow(totals[-3:])})"
    if not _fix_raised(seen.entries[:-1]):
        return False, f"single rise {totals[-2]}→{totals[-1]}: warning only"
    return True, (
        "Fix step is introducing more issues than it resolves. Review needed. "
        f"Total rose {_arrow(totals[-3:])} after the fixes of iterations "
        f"{seen.entries[-3].iteration} and {seen.entries[-2].iteration}."
    )


def _regression_warning(seen: _Iteration) -> str | None:
    """A single rise is worth a line in the log; the second one in a row halts instead."""
    if not _fix_raised(seen.entries) or _fix_raised(seen.entries[:-1]):
        return None
    before, after = seen.entries[-2], seen.last
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


def _termination(seen: _Iteration) -> tuple[bool, str]:
    counts = _counts(seen.last)
    misses = _over(seen)
    disputed = _disputed_clean_review(seen)
    if misses:
        return False, disputed + "not converged: " + ", ".join(misses)
    unconfirmed = _unconfirmed_clean_review(seen)
    if unconfirmed is not None:
        return False, (
            f"converged counts ({describe(counts)}), but iteration {unconfirmed.iteration}'s "
            f"review found {describe(_counts(unconfirmed))} in this same version: a second "
            f"review, given those issues, must agree (iteration {seen.last.iteration + 1})"
        )
    tests = "" if seen.tests_passed is None else " All tests pass."
    return True, f"polish loop converged. {describe(counts)}.{tests}{_confirmation(seen)}"


def _over(seen: _Iteration) -> list[str]:
    misses = _over_limits(_counts(seen.last), seen.config, factor=1)
    if seen.tests_passed is False:
        misses.append("tests failing")
    return misses


def _last_concern(seen: _Iteration) -> TrajectoryEntry | None:
    """The latest earlier review that found critical or medium issues in the version the last
    review read (None when the version is unknown: a state written before versions were kept)."""
    version = seen.last.version
    if version is None:
        return None
    return next(
        (
            e
            for e in reversed(seen.entries[:-1])
            if e.version == version and (e.critical or e.medium)
        ),
        None,
    )


def _clean_reviews_since(seen: _Iteration, concern: TrajectoryEntry) -> list[TrajectoryEntry]:
    """Reviews of the same version after `concern` whose counts are within the thresholds."""
    return [
        e
        for e in seen.entries
        if e.iteration > concern.iteration
        and e.version == concern.version
        and not _over_limits(_counts(e), seen.config, factor=1)
    ]


def _unconfirmed_clean_review(seen: _Iteration) -> TrajectoryEntry | None:
    """The earlier review a clean verdict on the same version contradicts, unless a second clean
    review of that version already agrees."""
    concern = _last_concern(seen)
    if concern is None or len(_clean_reviews_since(seen, concern)) >= 2:
        return None
    return concern


def _confirmation(seen: _Iteration) -> str:
    concern = _last_concern(seen)
    if concern is None:
        return ""
    first, *_ = _clean_reviews_since(seen, concern)
    return (
        f" The second review (iteration {seen.last.iteration}) agrees with iteration "
        f"{first.iteration}'s: none of the issues iteration {concern.iteration} found in this "
        "version stands."
    )


def _disputed_clean_review(seen: _Iteration) -> str:
    """The second review disagreed with the clean one it was asked to confirm."""
    if len(seen.entries) < 2:
        return ""
    before = seen.entries[-2]
    if before.version is None or before.version != seen.last.version:
        return ""
    earlier = _Iteration(seen.entries[:-1], [], [], seen.config, None, "")
    if _over(earlier) or _unconfirmed_clean_review(earlier) is None:
        return ""
    return (
        f"the second review disagrees with iteration {before.iteration}'s clean review of this "
        "version; "
    )


def _fix_of(entry: TrajectoryEntry) -> FixOutcome:
    """What the fix did; in a state written before `fix` existed, `fix_applied` is all there is
    (and what was not applied is not held against the fixer)."""
    if entry.fix is not None:
        return entry.fix
    return "changed" if entry.fix_applied else "none"


def _attempts(seen: _Iteration) -> list[TrajectoryEntry]:
    """The iterations whose fix was asked for, up to the last one if it was."""
    if _fix_of(seen.last) == "none":
        return []
    return [e for e in seen.entries if _fix_of(e) != "none"]


def _fix_output_invalid(seen: _Iteration) -> tuple[bool, str]:
    last_two = _attempts(seen)[-2:]
    if len(last_two) < 2 or any(_fix_of(e) != "refused" for e in last_two):
        return False, "no two refused fixes in a row"
    first, second = last_two
    return True, (
        f"Fix output rejected twice in a row (iterations {first.iteration} and "
        f"{second.iteration}; {seen.fix_note}). The deliverable was kept as it was."
    )


def _fix_unchanged(seen: _Iteration) -> tuple[bool, str]:
    last_two = _attempts(seen)[-2:]
    idle = [e for e in last_two if _fix_of(e) in ("unchanged", "refused")]
    if len(last_two) < 2 or len(idle) < 2:
        return False, "the last fixes changed the deliverable"
    said = "; ".join(f"iteration {e.iteration}: {_IDLE[_fix_of(e)]}" for e in idle)
    return True, (
        f"No fix changed the deliverable in iterations {idle[0].iteration} and "
        f"{idle[1].iteration} ({said}) while the reviewer still reports "
        f"{describe(_counts(seen.last))}: the same document would get the same review."
    )


_IDLE = {"unchanged": "returned it unchanged", "refused": "refused"}


def _fix_circular(seen: _Iteration) -> tuple[bool, str]:
    window = _attempts(seen)[-_CIRCULAR_WINDOW:]
    restored = [e for e in window if _fix_of(e) == "restored"]
    if len(restored) < 2 or _fix_of(seen.last) != "restored":
        return False, f"{len(restored)} of the last {len(window)} fixes restored an earlier version"
    said = ", ".join(f"fix #{e.iteration} restored {version_name(e.restored)}" for e in restored)
    return True, (
        f"Fixes are going in circles: {said}. The fixer undoes its own changes, so the loop "
        "cannot converge this way."
    )


def version_name(iteration: int | None) -> str:
    """A version of the deliverable by the fix that made it."""
    if not iteration:
        return "the version polishing began with"
    return f"the version fix #{iteration} made"


def _hallucination(seen: _Iteration) -> tuple[bool, str]:
    totals = seen.totals
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
        f"{current} at iteration {seen.last.iteration}."
    )


def _decreasing_run(totals: list[int]) -> list[int]:
    """The strictly decreasing stretch that ends at the last total."""
    start = len(totals) - 1
    while start > 0 and totals[start - 1] > totals[start]:
        start -= 1
    return totals[start:]


def _fabrication(seen: _Iteration) -> tuple[bool, str]:
    window = seen.entries[-1 - _FABRICATION_WINDOW : -1]
    if not window:
        return False, "first iteration: no trailing average"
    spikes = [spike for severity in Severity if (spike := _spike(seen.last, window, severity))]
    if not spikes:
        return False, f"no severity spiked against the last {len(window)} iteration(s)"
    spiked = "; ".join(spikes)
    near = _last_near_convergence(seen)
    if near is None:
        return False, f"{spiked}, but no earlier iteration was within twice the thresholds"
    return True, (
        f"fabrication suspected at iteration {seen.last.iteration}. Errors were near-converged "
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


def _last_near_convergence(seen: _Iteration) -> TrajectoryEntry | None:
    """The latest earlier iteration within twice every threshold (the spec hard-codes the 2×)."""
    for entry in reversed(seen.entries[:-1]):
        if not _over_limits(_counts(entry), seen.config, factor=2):
            return entry
    return None


def _stagnation(seen: _Iteration) -> tuple[bool, str]:
    limit, totals = seen.config.stagnation_limit, seen.totals
    recent = totals[-limit:]
    if len(recent) < limit or len(set(recent)) > 1:
        return False, f"no plateau: last totals {_arrow(recent)}, need {limit} equal"
    from thoughtforge.phases.polish.issue_matching import tally_matches  # rapidfuzz: on a plateau

    tally = tally_matches(seen.current_issues, seen.previous_issues)
    if tally.persists:
        return False, f"total stuck at {totals[-1]} but the same issues persist ({tally.share})"
    above = ", ".join(_over(seen))
    return True, (
        f"polish sufficient: total stuck at {totals[-1]} ({describe(_counts(seen.last))}) for "
        f"{limit} iterations while issues rotate ({tally.share}). Converged at a plateau above "
        f"the thresholds ({above}): {seen.last.total} issue(s) still open."
    )


def _persistence(seen: _Iteration) -> tuple[bool, str]:
    """A plateau twice as long as stagnation's whose issues persist: the fixer changes the
    deliverable but does not resolve them, and more iterations would only repeat that."""
    span = 2 * seen.config.stagnation_limit
    recent = seen.totals[-span:]
    if len(recent) < span or len(set(recent)) > 1:
        return False, f"no plateau of {span} iterations"
    from thoughtforge.phases.polish.issue_matching import tally_matches

    tally = tally_matches(seen.current_issues, seen.previous_issues)
    if not tally.persists:
        return False, f"the issues rotate ({tally.share})"
    first = seen.entries[-span].iteration
    return True, (
        f"The same issues have stayed open for {span} iterations (total stuck at "
        f"{recent[-1]}, {describe(_counts(seen.last))}, since iteration {first}; {tally.share}) "
        "although the fixes changed the deliverable: the fixer is not resolving them."
    )


def weighted(entry: TrajectoryEntry) -> int:
    """An iteration's issues, each counted by its severity's weight."""
    return sum(weight * getattr(entry, s.value) for s, weight in SEVERITY_WEIGHTS.items())


def _low_value(seen: _Iteration) -> str | None:
    """What the last `value_window` iterations bought per dollar, when seen is below
    `min_issues_resolved_per_usd` (the value guard; off unless set); None otherwise."""
    floor, k = seen.config.min_issues_resolved_per_usd, seen.config.value_window
    if floor is None or len(seen.entries) <= k:
        return None
    costs = [entry.usd for entry in seen.entries[-k:]]
    if any(cost is None for cost in costs):
        return None  # an iteration without a price cannot be weighed
    spent = sum(cost for cost in costs if cost is not None)
    if spent <= 0:
        return None
    resolved = weighted(seen.entries[-k - 1]) - weighted(seen.last)
    rate = resolved / spent
    if rate >= floor:
        return None
    each = spent / k
    likely = max(rate, 0.0) * each
    return (
        f"The last {k} iterations resolved {resolved} severity-weighted issue(s) for "
        f"{usd(spent)} ({rate:.1f} per dollar; polish.min_issues_resolved_per_usd is "
        f"{_number(floor)}): another iteration, about {usd(each)}, would likely resolve "
        f"{likely:.1f} (critical 5, medium 2, minor 1)."
    )


def _value_done(seen: _Iteration) -> tuple[bool, str]:
    """Low value near the thresholds (within twice them): done, the issues left listed."""
    low = _low_value(seen)
    if low is None:
        return False, _value_state(seen)
    if _over_limits(_counts(seen.last), seen.config, factor=2):
        return False, "low value, but not within twice the thresholds"
    return True, (
        f"polish stopped on value: {low} Within twice the thresholds "
        f"({describe(_counts(seen.last))}): {seen.last.total} issue(s) still open."
    )


def _value_halt(seen: _Iteration) -> tuple[bool, str]:
    """Low value far from the thresholds: the person decides whether more is worth paying."""
    low = _low_value(seen)
    if low is None:
        return False, _value_state(seen)
    return True, f"{low} Still {describe(_counts(seen.last))}: more polishing is yours to decide."


def _value_state(seen: _Iteration) -> str:
    if seen.config.min_issues_resolved_per_usd is None:
        return "off (polish.min_issues_resolved_per_usd unset)"
    window = seen.entries[-seen.config.value_window :]
    if any(entry.usd is None for entry in window):
        return "cannot weigh: an iteration of the window has no price"
    return "worth its cost"


def _max_iterations(seen: _Iteration) -> tuple[bool, str]:
    ceiling = seen.config.max_iterations
    if seen.last.iteration < ceiling:
        return False, f"iteration {seen.last.iteration} of {ceiling}"
    average = sum(seen.totals) / len(seen.totals)
    lowest = min(seen.entries, key=lambda entry: entry.total)  # the first at the lowest
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
    ("fix_output_invalid", "halt", HaltReason.FIX_OUTPUT_INVALID, _fix_output_invalid),
    ("fix_unchanged", "halt", HaltReason.GUARD_FIX_UNCHANGED, _fix_unchanged),
    ("fix_circular", "halt", HaltReason.GUARD_FIX_CIRCULAR, _fix_circular),
    ("hallucination", "halt", HaltReason.GUARD_HALLUCINATION, _hallucination),
    ("fabrication", "halt", HaltReason.GUARD_FABRICATION, _fabrication),
    ("value", "done", None, _value_done),
    ("low_value", "halt", HaltReason.GUARD_LOW_VALUE, _value_halt),
    ("stagnation", "done", None, _stagnation),
    ("persistence", "halt", HaltReason.GUARD_ISSUES_PERSIST, _persistence),
    ("max_iterations", "halt", HaltReason.GUARD_MAX_ITERATIONS, _max_iterations),
)
