"""The verdict on a step against the lock: which locked tests or runner files it touched, and
which criteria it was free to change (the person reworded them) but left without a test.

Pure: the lock, the criteria as `constraints.md` states them now, the survey of the tree the step
left, the suite's collected count and the fingerprints of the files the locked tests read.
"""

from __future__ import annotations

from pydantic import BaseModel

from thoughtforge.phases.traceability import Criterion
from thoughtforge.plugins.code.acceptance.lock import AcceptanceLock, LockedCriterion
from thoughtforge.plugins.code.acceptance.python_tests import (
    FoundTest,
    ModuleContext,
    context_kept,
)
from thoughtforge.plugins.code.acceptance.reads import changed_reads
from thoughtforge.plugins.code.acceptance.runner_files import changed_runner_files
from thoughtforge.plugins.code.acceptance.survey import Survey

NAMING = "test_ac_<n>_<words>"


def criterion_test_name(number: int) -> str:
    """The name a test of criterion `number` must start with."""
    return f"test_ac_{number}_<words>"


class Touched(BaseModel):
    """One locked thing a step changed, and how."""

    what: str
    how: str

    def __str__(self) -> str:
        return f"{self.what} ({self.how})"


class LockVerdict(BaseModel):
    touched: list[Touched] = []
    untested: list[Criterion] = []
    """Criteria with no test named after them (`NAMING`)."""
    unlocked: list[int] = []
    """Criteria the person changed since the lock: their tests were free to change."""
    collected: int | None = None
    """The suite's collected count after the step, when measured."""

    @property
    def refused(self) -> bool:
        return bool(self.touched or self.untested)

    @property
    def reason(self) -> str:
        parts = []
        if self.touched:
            named = "; ".join(str(t) for t in self.touched[:8])
            more = f" and {len(self.touched) - 8} more" if len(self.touched) > 8 else ""
            parts.append(f"it touched the locked acceptance tests: {named}{more}")
        if self.untested:
            numbers = ", ".join(f"#{c.number}" for c in self.untested)
            parts.append(f"it left criteria {numbers} without a test named {NAMING}")
        return "; ".join(parts)


def judge(
    lock: AcceptanceLock,
    criteria: list[Criterion],
    now: Survey,
    collected: int | None,
    reads: dict[str, str] | None = None,
) -> LockVerdict:
    """What the step did to the lock; `collected` is the suite's count now, if measured;
    `reads` the fingerprints of the files the locked tests read (`reads.fingerprints_now`)."""
    current = {c.number: c for c in criteria}
    touched: list[Touched] = []
    unlocked: list[int] = []
    for locked in lock.criteria:
        still = current.get(locked.number)
        if still is None or still.text != locked.text:
            unlocked.append(locked.number)
            continue
        touched += _test_changes(locked, lock.modules, now)
    if reads is not None:
        free = {t.node_id for n in unlocked if (c := lock.criterion(n)) for t in c.tests}
        changed = changed_reads(lock.reads, reads, free)
        touched += [Touched(what=path, how=how) for path, how in changed]
    touched += [
        Touched(what=path, how="the test runner's configuration or collection changed")
        for path in changed_runner_files(lock.runner, now.runner)
    ]
    touched += [
        Touched(
            what=path,
            how=f"the code under test now reaches into the test runner: {', '.join(modules)}",
        )
        for path, modules in now.code_imports.items()
        if not set(modules) <= set(lock.code_imports.get(path, []))
    ]
    if collected is not None and collected < lock.collected:
        touched.append(
            Touched(
                what="the suite",
                how=f"it collects {collected} tests, fewer than the {lock.collected} it had",
            )
        )
    locked_numbers = {c.number for c in lock.criteria} - set(unlocked)
    untested = [
        c for c in criteria if c.number not in locked_numbers and not now.for_criterion(c.number)
    ]
    return LockVerdict(touched=touched, untested=untested, unlocked=unlocked, collected=collected)


def untested(criteria: list[Criterion], now: Survey) -> list[Criterion]:
    """The criteria no test is named after (the Phase 3 → 4 check)."""
    return [c for c in criteria if not now.for_criterion(c.number)]


def lock_of(
    criteria: list[Criterion], now: Survey, collected: int, commit: str | None
) -> AcceptanceLock:
    """The lock of the tests as they stand: each criterion with the tests named after it."""
    locked = [
        LockedCriterion(number=c.number, text=c.text, tests=now.for_criterion(c.number))
        for c in criteria
    ]
    files = {test.file for c in locked for test in c.tests}
    return AcceptanceLock(
        criteria=locked,
        modules={path: now.modules[path] for path in sorted(files) if path in now.modules},
        runner=now.runner,
        code_imports=now.code_imports,
        collected=collected,
        commit=commit,
    )


def _test_changes(
    locked: LockedCriterion, modules: dict[str, ModuleContext], now: Survey
) -> list[Touched]:
    changes: list[Touched] = []
    for test in locked.tests:
        found = now.test(test.node_id, test.criterion if test.node_id == test.file else None)
        if found is None:
            how = "deleted, renamed or moved" + _unreadable(test, now)
            changes.append(Touched(what=test.node_id, how=how))
            continue
        why = _module_change(test, modules, now)
        if why is not None:
            changes.append(Touched(what=test.node_id, how=f"edited: {why}"))
        elif found.fingerprint != test.fingerprint:
            how = "edited: its decorators, body, assertions or expected values changed"
            changes.append(Touched(what=test.node_id, how=how))
    return changes


def _module_change(test: FoundTest, modules: dict[str, ModuleContext], now: Survey) -> str | None:
    before, after = modules.get(test.file), now.modules.get(test.file)
    if before is None or after is None:
        return None
    return context_kept(before, after)


def _unreadable(test: FoundTest, now: Survey) -> str:
    return " (its module no longer parses)" if test.file in now.unreadable else ""
