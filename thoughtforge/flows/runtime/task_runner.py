"""The `StepRunner` Phase 3 hands to its builder: each step (a plan section, a build step, a test
run, a fix cycle) becomes a named Prefect task run. Polish iterations are not task runs: they
made a quick polish loop markedly slower (see `phases.polish.loop`).

One task serves every step, named per run (`task_run_name`): making a task per step costs time
for each. Results stay in memory: the project's files, not Prefect, are the record of
each step. Prefect's "Finished in state Completed()" line per step is dropped (a failure is still
logged): the phase logs its own line per step, and each line costs the run a console render and
an upload.

A step that halts the project (a `PhaseHalt`, a project file it cannot use) ends as it was
meant to: its task run is `Completed`, named `Halted` with the reason, not `Failed` with an
ERROR line; the halt then goes on to the engine, which records it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from prefect.cache_policies import NO_CACHE
from prefect.states import Completed, State
from prefect.tasks import task

from thoughtforge.phases.failure_halts import HALTING_FAILURES

T = TypeVar("T")
HALTED = "Halted"
"""The name of a run's (or task run's) state when it ended in an expected halt."""


@dataclass(frozen=True)
class _Halting:
    failure: Exception


def halted_state(reason: str, result: object = None) -> State:
    """A normal completion that says the project halted, and why."""
    return Completed(name=HALTED, message=reason, data=result)


@task(name="step", cache_policy=NO_CACHE, persist_result=False, task_run_name="{name}")
def _step(name: str, step: Callable[[], Any]) -> Any:
    try:
        return step()
    except HALTING_FAILURES as failure:
        return halted_state(str(failure), _Halting(failure))


def as_task(name: str, step: Callable[[], T]) -> T:
    outcome = _step(name, step, return_state=True).result()
    if isinstance(outcome, _Halting):
        raise outcome.failure
    result: T = outcome
    return result


def _not_a_success(record: logging.LogRecord) -> bool:
    return not record.getMessage().startswith("Finished in state Completed(")


logging.getLogger("prefect.task_runs").addFilter(_not_a_success)
