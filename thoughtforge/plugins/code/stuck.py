"""Code mode's stuck detection: failure patterns the orchestrator observes, not the agent's word.

Two rules from the spec. The same task (one prompt intent, such as "implement feature X" or "fix
test Y") failing with a non-zero exit on `AGENT_FAILURE_LIMIT` consecutive agent invocations is
stuck; any other invocation in between breaks the run. The identical set of failing test names
(exact string match, order and repeats ignored) on `TEST_REPEAT_LIMIT` consecutive
fix-and-retest cycles is stuck; rotating failures never are. A cycle whose runner named no failing
tests has the empty set, which compares equal to the next such cycle: without a hard cap on
cycles, that is what keeps a suite whose failures cannot be named from looping forever.

The tracker is a pydantic model so the builder can save it with the project and resume its counts
after a restart. Human input (Provide Input) resets it: the input is a new attempt, not a
continuation of the failure sequence.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

AGENT_FAILURE_LIMIT = 2
TEST_REPEAT_LIMIT = 3
NAMED_TESTS = 10
"""At most this many test names go into a halt message; `Stuck.tests` keeps them all."""


class Stuck(BaseModel):
    """Which rule fired and on what; `reason` is written for the human's halt message."""

    rule: Literal["agent_failures", "test_failures"]
    reason: str
    task: str | None = None
    tests: list[str] = []


class StuckTracker(BaseModel):
    model_config = ConfigDict(extra="forbid")

    last_task: str | None = None
    task_failures: int = Field(0, ge=0)
    failing_tests: list[str] = []
    test_repeats: int = Field(0, ge=0)

    def agent_failed(self, task: str) -> Stuck | None:
        """The agent exited non-zero on `task`; stuck when that is its run's limit-th failure."""
        self.task_failures = self.task_failures + 1 if task == self.last_task else 1
        self.last_task = task
        if self.task_failures < AGENT_FAILURE_LIMIT:
            return None
        return Stuck(
            rule="agent_failures",
            task=task,
            reason=(
                f"the coding agent failed (non-zero exit) on '{task}' "
                f"{self.task_failures} times in a row"
            ),
        )

    def agent_succeeded(self, task: str) -> None:
        self.last_task = task
        self.task_failures = 0

    def tests_failed(self, failing: list[str]) -> Stuck | None:
        """A fix-and-retest cycle ended with `failing`; stuck when that set repeats to the limit."""
        names = sorted(set(failing))
        self.test_repeats = self.test_repeats + 1 if names == self.failing_tests else 1
        self.failing_tests = names
        if self.test_repeats < TEST_REPEAT_LIMIT:
            return None
        return Stuck(
            rule="test_failures",
            tests=names,
            reason=(
                f"the same failing tests in {self.test_repeats} consecutive fix-and-retest "
                f"cycles: {_listing(names)}"
            ),
        )

    def tests_passed(self) -> None:
        self.failing_tests = []
        self.test_repeats = 0

    def reset(self, task: str) -> None:
        """The human gave input for `task`: its failures and the test cycles count from 0 again."""
        if task == self.last_task:
            self.task_failures = 0
        self.failing_tests = []
        self.test_repeats = 0


def _listing(names: list[str]) -> str:
    if not names:
        return "the test runner named none of them"
    shown = ", ".join(names[:NAMED_TESTS])
    more = len(names) - NAMED_TESTS
    return f"{shown} and {more} more" if more > 0 else shown
