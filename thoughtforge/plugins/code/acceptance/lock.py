"""`acceptance_lock.json`: the tests that stand for the acceptance criteria, as Phase 3 left them.

Written when Phase 3 ends in code mode (and again after each accepted step that a person's
change to a criterion unlocked): for each criterion of `constraints.md`, its text and the tests
named after it (`test_ac_<n>_...`), each with its file, node id and fingerprint; the runner's
files (`runner_files`); the files the tests read besides themselves (`reads`); the test modules'
contexts; and how many tests the whole suite collected, which may never fall. A file of
ThoughtForge's own, written atomically; an agent that edits it has its edit put back before the
step is judged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from thoughtforge.core.state import ACCEPTANCE_LOCK_FILE, read_state_file, write_state_file
from thoughtforge.plugins.code.acceptance.python_tests import FoundTest, ModuleContext

LOCK_FILE = ACCEPTANCE_LOCK_FILE


class LockedCriterion(BaseModel):
    model_config = ConfigDict(extra="forbid")

    number: int = Field(ge=1)
    text: str
    tests: list[FoundTest]


class LockedRead(BaseModel):
    """A file the locked tests read (their data, a helper), as it was locked."""

    model_config = ConfigDict(extra="forbid")

    fingerprint: str
    tests: list[str] = []
    """The locked tests that read it; none: it was read as pytest collected them (all)."""


class AcceptanceLock(BaseModel):
    model_config = ConfigDict(extra="forbid")

    per: Literal["test", "file"] = "test"
    """pytest's tests are locked one by one (node ids); another language's by test file."""
    criteria: list[LockedCriterion]
    modules: dict[str, ModuleContext]
    """Test module path → its context, for every module holding a locked test."""
    runner: dict[str, str]
    """Path → fingerprint of every file the runner reads before the tests."""
    reads: dict[str, LockedRead] = {}
    """Path → each project file the locked tests opened or imported besides themselves and the
    runner's files (`reads`), when the lock was taken."""
    code_imports: dict[str, list[str]] = {}
    """The code under test that imported the runner's modules when locked (normally none)."""
    collected: int = Field(ge=0)
    """The whole suite's tests (collected by pytest; else as its own run counted them): a step
    may add tests, never lose one."""
    commit: str | None = None
    """The commit the lock was taken at."""

    @property
    def tests(self) -> list[FoundTest]:
        return [test for criterion in self.criteria for test in criterion.tests]

    def criterion(self, number: int) -> LockedCriterion | None:
        return next((c for c in self.criteria if c.number == number), None)


def read_lock(project_dir: Path) -> AcceptanceLock | None:
    """The lock, or None before Phase 3 has ended (or in a project built before locking);
    `StateFileError` when it cannot be read."""
    if not (project_dir / LOCK_FILE).exists():
        return None
    return read_state_file(project_dir, LOCK_FILE, AcceptanceLock)


def write_lock(project_dir: Path, lock: AcceptanceLock) -> None:
    write_state_file(project_dir, LOCK_FILE, lock)
