"""The `StepRunner` a flow hands to a phase engine: each step becomes a named Prefect task.

A step that halts the project (a `PhaseHalt`, a project file it cannot use) ends as it was
meant to: its task run is `Completed`, named `Halted` with the reason, not `Failed` with an
ERROR line; the halt then goes on to the engine, which records it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from prefect import task
from prefect.cache_policies import NO_CACHE
from prefect.states import Completed, State

from thoughtforge.phases.engine import HALTING_FAILURES

T = TypeVar("T")
HALTED = "Halted"
"""The name of a run's (or task run's) state when it ended in an expected halt."""


@dataclass(frozen=True)
class _Halting:
    failure: Exception


def halted_state(reason: str, result: object = None) -> State:
    """A normal completion that says the project halted, and why."""
    return Completed(name=HALTED, message=reason, data=result)


def as_task(name: str, step: Callable[[], T]) -> T:
    """Results stay in memory: the project's files, not Prefect, are the record of each step."""

    def guarded() -> T | State:
        try:
            return step()
        except HALTING_FAILURES as failure:
            return halted_state(str(failure), _Halting(failure))

    ran = task(guarded, name=name, cache_policy=NO_CACHE, persist_result=False)
    outcome = ran(return_state=True).result()
    if isinstance(outcome, _Halting):
        raise outcome.failure
    return outcome  # type: ignore[no-any-return]
