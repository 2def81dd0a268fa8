"""The project's tests as its files stand now: each test with the criterion its name claims,
the contexts of the test modules, and the runner's files."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from thoughtforge.core import git_repo
from thoughtforge.plugins.code.acceptance.python_tests import (
    TEST_FILE,
    FoundTest,
    ModuleContext,
    reaches_into_runner,
    read_module,
)
from thoughtforge.plugins.code.acceptance.runner_files import is_runner_file, runner_fingerprints

MAX_SOURCE_BYTES = 2_000_000
"""A test module larger than this is not read (and its tests are not found)."""


class Survey(BaseModel):
    tests: list[FoundTest]
    modules: dict[str, ModuleContext]
    runner: dict[str, str]
    code_imports: dict[str, list[str]] = {}
    """Code under test (not a test, conftest or test support) → the runner modules it imports."""
    unreadable: list[str] = []

    def for_criterion(self, number: int) -> list[FoundTest]:
        return [test for test in self.tests if test.criterion == number]

    def test(self, node_id: str) -> FoundTest | None:
        return next((test for test in self.tests if test.node_id == node_id), None)


def survey(project_dir: Path) -> Survey:
    """Every test module and runner file git would keep, read from the work tree."""
    listed = git_repo.listed_files(project_dir)

    def read(relpath: str) -> str | None:
        return _read(project_dir, relpath)

    tests: list[FoundTest] = []
    modules: dict[str, ModuleContext] = {}
    unreadable: list[str] = []
    code_imports: dict[str, list[str]] = {}
    for relpath in listed:
        if not relpath.endswith(".py"):
            continue
        text = read(relpath)
        if text is None:
            continue
        if not TEST_FILE.search(relpath):
            if not is_runner_file(relpath) and (imported := reaches_into_runner(text)):
                code_imports[relpath] = imported
            continue
        module = read_module(relpath, text)
        if module is None:
            unreadable.append(relpath)
            continue
        tests += module.tests
        modules[relpath] = module.context
    return Survey(
        tests=tests,
        modules=modules,
        runner=runner_fingerprints(listed, read),
        code_imports=code_imports,
        unreadable=unreadable,
    )


def _read(project_dir: Path, relpath: str) -> str | None:
    path = project_dir / relpath
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_SOURCE_BYTES:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
