"""A stand-in for kill -9 inside a phase engine: a runner that stops dead at a named step."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class Killed(BaseException):
    """Nothing after it runs, and no `except Exception` in the engine can catch it."""


def kill_at(step_name: str, after: bool = False) -> Callable[[str, Callable[[], T]], T]:
    def runner(name: str, step: Callable[[], T]) -> T:
        if name == step_name and not after:
            raise Killed(name)
        result = step()
        if name == step_name:
            raise Killed(name)
        return result

    return runner
