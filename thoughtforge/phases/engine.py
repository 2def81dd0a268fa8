"""How a phase engine runs its steps: directly, or (from a flow) each as a named Prefect task."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
StepRunner = Callable[[str, Callable[[], T]], T]


def run_direct(name: str, step: Callable[[], T]) -> T:
    """The runner without Prefect: just call the step."""
    return step()
