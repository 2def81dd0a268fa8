"""The `StepRunner` a flow hands to a phase engine: each step becomes a named Prefect task run.

One task serves every step, named per run (`task_run_name`): making a task per step cost a
millisecond each, a polish iteration's worth of orchestration. Results stay in memory: the
project's files, not Prefect, are the record of each step. Prefect's "Finished in state
Completed()" line per step is dropped (a failure is still logged): the phase logs its own line
per step, and each line costs the run a console render and an upload.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

from prefect import task
from prefect.cache_policies import NO_CACHE

T = TypeVar("T")


@task(name="step", cache_policy=NO_CACHE, persist_result=False, task_run_name="{name}")
def _step(name: str, step: Callable[[], Any]) -> Any:
    return step()


def as_task(name: str, step: Callable[[], T]) -> T:
    result: T = _step(name, step)
    return result


def _not_a_success(record: logging.LogRecord) -> bool:
    return not record.getMessage().startswith("Finished in state Completed(")


logging.getLogger("prefect.task_runs").addFilter(_not_a_success)
