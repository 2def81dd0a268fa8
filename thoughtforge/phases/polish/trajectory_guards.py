"""The guards that read the trajectory, one entry per iteration, rather than single findings.

Over the fixer's outcomes: fixes that raise the total, fixes refused twice in a row, fixes that
leave the deliverable as it was, fixes that go in circles. Over the review's counts: a
fix-regress cycle (hallucination), a spike on a nearly converged deliverable (fabrication), the
value guard, and the iteration ceiling. Ratio thresholds are compared in integers, so a rise of
exactly 20 % or 50 % is never pushed over by rounding."""

from __future__ import annotations

from thoughtforge.core.spend.budget import usd
from thoughtforge.core.state import TrajectoryEntry
from thoughtforge.models import Severity
from thoughtforge.phases.polish.guard_view import (
    Seen,
    arrow,
    counts,
    describe,
    fix_of,
    number,
    open_counts,
    over_limits,
    version_name,
)

SEVERITY_WEIGHTS = {Severity.CRITICAL: 5, Severity.MEDIUM: 2, Severity.MINOR: 1}
"""How much resolving an issue is worth to the value guard, by severity."""
_FABRICATION_WINDOW = 3
_CIRCULAR_WINDOW = 4
"""Two fixes among the last four that restore an earlier version: the fixer goes in circles."""
_IDLE = {"unchanged": "returned it unchanged", "refused": "refused"}


def fix_regression(seen: Seen) -> tuple[bool, str]:
    totals = seen.totals
    if not _fix_raised(seen.entries):
        return False, f"no fix raised the total (last totals: {arrow(totals[-3:])})"
    if not _fix_raised(seen.entries[:-1]):
        return False, f"single rise {totals[-2]}→{totals[-1]}: warning only"
    return True, (
        "Fix step is introducing more issues than it resolves. Review needed. "
        f"Total rose {arrow(totals[-3:])} after the fixes of iterations "
        f"{seen.entries[-3].iteration} and {seen.entries[-2].iteration}."
    )


def regression_warning(seen: Seen) -> str | None:
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


def _attempts(seen: Seen) -> list[TrajectoryEntry]:
    """The iterations whose fix was asked for, up to the last one if it was."""
    if fix_of(seen.last) == "none":
        return []
    return [e for e in seen.entries if fix_of(e) != "none"]


def fix_output_invalid(seen: Seen) -> tuple[bool, str]:
    last_two = _attempts(seen)[-2:]
    if len(last_two) < 2 or any(fix_of(e) != "refused" for e in last_two):
        return False, "no two refused fixes in a row"
    first, second = last_two
    return True, (
        f"Fix output rejected twice in a row (iterations {first.iteration} and "
        f"{second.iteration}; {seen.fix_note}). The deliverable was kept as it was."
    )


def fix_unchanged(seen: Seen) -> tuple[bool, str]:
    last_two = _attempts(seen)[-2:]
    idle = [e for e in last_two if fix_of(e) in ("unchanged", "refused")]
    if len(last_two) < 2 or len(idle) < 2:
        return False, "the last fixes changed the deliverable"
    said = "; ".join(f"iteration {e.iteration}: {_IDLE[fix_of(e)]}" for e in idle)
    return True, (
        f"No fix changed the deliverable in iterations {idle[0].iteration} and "
        f"{idle[1].iteration} ({said}) while the reviewer reports "
        f"{describe(counts(seen.last))} and the finding tracker holds "
        f"{describe(open_counts(seen))} open: the same document would get the same review."
    )


def fix_circular(seen: Seen) -> tuple[bool, str]:
    window = _attempts(seen)[-_CIRCULAR_WINDOW:]
    restored = [e for e in window if fix_of(e) == "restored"]
    if len(restored) < 2 or fix_of(seen.last) != "restored":
        return False, f"{len(restored)} of the last {len(window)} fixes restored an earlier version"
    said = ", ".join(f"fix #{e.iteration} restored {version_name(e.restored)}" for e in restored)
    return True, (
        f"Fixes are going in circles: {said}. The fixer undoes its own changes, so the loop "
        "cannot converge this way."
    )


def hallucination(seen: Seen) -> tuple[bool, str]:
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
        f"fix-regress cycle detected. Errors trending down ({arrow(run)}) then spiked to "
        f"{current} at iteration {seen.last.iteration}."
    )


def _decreasing_run(totals: list[int]) -> list[int]:
    """The strictly decreasing stretch that ends at the last total."""
    start = len(totals) - 1
    while start > 0 and totals[start - 1] > totals[start]:
        start -= 1
    return totals[start:]


def fabrication(seen: Seen) -> tuple[bool, str]:
    window = seen.entries[-1 - _FABRICATION_WINDOW : -1]
    if not window:
        return False, "first iteration: no trailing average"
    spiking = {
        severity: spike for severity in Severity if (spike := _spike(seen.last, window, severity))
    }
    if not spiking:
        return False, f"no severity spiked against the last {len(window)} iteration(s)"
    spiked = "; ".join(spiking.values())
    near = _last_near_convergence(seen)
    if near is None:
        return False, f"{spiked}, but no earlier iteration was within twice the thresholds"
    if not any(_mostly_new(seen, severity, window) for severity in spiking):
        reported = seen.tracker.reported_at(seen.last.iteration)
        known = sum(1 for f in reported if f.found_at < seen.last.iteration)
        return False, (
            f"{spiked}, but {known} of the {len(reported)} findings reported were found before "
            "(their labels changed, not their number): nothing was manufactured"
        )
    return True, (
        f"fabrication suspected at iteration {seen.last.iteration}. Errors were near-converged "
        f"({describe(counts(near))}) at iteration {near.iteration} then spiked: {spiked}. "
        "The reviewer may be manufacturing issues because nothing real remains."
    )


def _mostly_new(seen: Seen, severity: Severity, window: list[TrajectoryEntry]) -> bool:
    """Whether at least half of `severity`'s rise over its trailing average is findings new this
    iteration: a rise made of findings reported before under another label is relabelling."""
    iteration = seen.last.iteration
    everything = seen.tracker.reported_at(iteration)
    labelled = [f for f in everything if f.severity is severity]
    pool = labelled or everything  # the tracker holds it under other labels: judge them all
    if not pool:
        return True  # the counts alone: nothing says the rise is old findings
    new = sum(1 for finding in pool if finding.found_at == iteration)
    if not labelled:
        return new * 2 > len(pool)
    average = sum(_count(e, severity) for e in window) / len(window)
    return new * 2 >= _count(seen.last, severity) - average


def _spike(entry: TrajectoryEntry, window: list[TrajectoryEntry], severity: Severity) -> str | None:
    """count > 1.5 × average and count − average ≥ 2, multiplied out by 2·len(window)."""
    count = _count(entry, severity)
    size, past = len(window), sum(_count(e, severity) for e in window)
    if count * size * 2 > past * 3 and count * size - past >= 2 * size:
        return f"{severity.value} {count} vs trailing average {number(past / size)}"
    return None


def _count(entry: TrajectoryEntry, severity: Severity) -> int:
    return {
        Severity.CRITICAL: entry.critical,
        Severity.MEDIUM: entry.medium,
        Severity.MINOR: entry.minor,
    }[severity]


def _last_near_convergence(seen: Seen) -> TrajectoryEntry | None:
    """The latest earlier iteration within twice every threshold (the spec hard-codes the 2×)."""
    for entry in reversed(seen.entries[:-1]):
        if not over_limits(counts(entry), seen.config, factor=2):
            return entry
    return None


def weighted(entry: TrajectoryEntry) -> int:
    """An iteration's issues, each counted by its severity's weight."""
    return sum(weight * _count(entry, s) for s, weight in SEVERITY_WEIGHTS.items())


def _low_value(seen: Seen) -> str | None:
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
        f"{number(floor)}): another iteration, about {usd(each)}, would likely resolve "
        f"{likely:.1f} (critical 5, medium 2, minor 1)."
    )


def value_done(seen: Seen) -> tuple[bool, str]:
    """Low value near the thresholds (within twice them): done, the issues left listed."""
    low = _low_value(seen)
    if low is None:
        return False, _value_state(seen)
    if over_limits(counts(seen.last), seen.config, factor=2):
        return False, "low value, but not within twice the thresholds"
    return True, (
        f"polish stopped on value: {low} Within twice the thresholds "
        f"({describe(counts(seen.last))}): {seen.last.total} issue(s) still open."
    )


def value_halt(seen: Seen) -> tuple[bool, str]:
    """Low value far from the thresholds: the person decides whether more is worth paying."""
    low = _low_value(seen)
    if low is None:
        return False, _value_state(seen)
    return True, f"{low} Still {describe(counts(seen.last))}: more polishing is yours to decide."


def _value_state(seen: Seen) -> str:
    if seen.config.min_issues_resolved_per_usd is None:
        return "off (polish.min_issues_resolved_per_usd unset)"
    window = seen.entries[-seen.config.value_window :]
    if any(entry.usd is None for entry in window):
        return "cannot weigh: an iteration of the window has no price"
    return "worth its cost"


def max_iterations(seen: Seen) -> tuple[bool, str]:
    ceiling = seen.config.max_iterations
    if seen.last.iteration < ceiling:
        return False, f"iteration {seen.last.iteration} of {ceiling}"
    average = sum(seen.totals) / len(seen.totals)
    lowest = min(seen.entries, key=lambda entry: entry.total)  # the first at the lowest
    return True, (
        f"Max {ceiling} iterations reached. Avg flaws/iter: {number(average)}. "
        f"Lowest: {lowest.total} at iter {lowest.iteration}."
    )
