"""The guards that watch the fixer rather than the reviewer: fixes that raise the total, fixes
refused twice in a row, fixes that leave the deliverable as it was, fixes that go in circles."""

from __future__ import annotations

from thoughtforge.core.state import TrajectoryEntry
from thoughtforge.phases.polish.guard_view import (
    Seen,
    arrow,
    counts,
    describe,
    fix_of,
    open_counts,
    version_name,
)

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
        f"{describe(counts(seen.last))} and the ledger holds {describe(open_counts(seen))} "
        "open: the same document would get the same review."
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
