"""The `StepRunner` a flow hands to a phase engine: each step becomes a named Prefect task."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from prefect import task
from prefect.cache_policies import NO_CACHE

T = TypeVar("T")


def as_task(name: str, step: Callable[[], T]) -> T:
    """Results stay in memory: the project's files, not Prefect, are the record of each step."""
    return task(step, name=name, cache_policy=NO_CACHE, persist_result=False)()
