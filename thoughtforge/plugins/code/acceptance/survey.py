"""The project's tests as its files stand now: each test with the criterion its name claims,
the contexts of the test modules, and the runner's files.

A pytest project is read test by test (`survey`). In any other language (`generic_survey`) the
unit is a test file: each file among the tests that names a criterion (`ac_<n>`, `AC-<n>`, in a
test's name or title) stands for it, fingerprinted whole (whitespace at line ends aside), and
the runner's files are its configuration (`runner_files.generic_fingerprints`)."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path, PurePosixPath

from pydantic import BaseModel

from thoughtforge.core import git_repo
from thoughtforge.core.own_files import read_own_text
from thoughtforge.plugins.code.acceptance.python_tests import (
    TEST_FILE,
    FoundTest,
    ModuleContext,
    reaches_into_runner,
    read_module,
)
from thoughtforge.plugins.code.acceptance.runner_files import (
    ROOT_RUNNER_NAMES,
    RUNNER_NAMES,
    generic_fingerprints,
    is_runner_file,
    runner_fingerprints,
    shadows_the_runner,
)
from thoughtforge.plugins.code.building.source_files import is_test_path

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

    def test(self, node_id: str, criterion: int | None = None) -> FoundTest | None:
        """The test of that node id (in a file-level survey, the file's entry for `criterion`)."""
        return next(
            (
                test
                for test in self.tests
                if test.node_id == node_id and (criterion is None or test.criterion == criterion)
            ),
            None,
        )


def survey(project_dir: Path) -> Survey:
    """Every test module and runner file git would keep, read from the work tree, and every
    conftest or runner configuration even where git ignores it (pytest does not)."""
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
        runner=runner_fingerprints(sorted({*listed, *_runner_files_anywhere(project_dir)}), read),
        code_imports=code_imports,
        unreadable=unreadable,
    )


GENERIC_CRITERION = re.compile(r"(?<![a-z0-9])ac[ _-]?(\d+)(?![0-9])", re.IGNORECASE)


def generic_survey(project_dir: Path) -> Survey:
    """The test files that name a criterion, each one a locked unit, and the runner's files."""
    listed = git_repo.listed_files(project_dir)

    def read(relpath: str) -> str | None:
        return _read(project_dir, relpath)

    tests: list[FoundTest] = []
    for relpath in listed:
        if not is_test_path(PurePosixPath(relpath)) or PurePosixPath(relpath).suffix == ".md":
            continue
        text = read(relpath)
        if text is None:
            continue
        normal = "\n".join(line.rstrip() for line in text.strip().splitlines())
        digest = hashlib.sha256(normal.encode("utf-8")).hexdigest()[:32]
        numbers = sorted({int(n) for n in GENERIC_CRITERION.findall(text)})
        tests += [
            FoundTest(node_id=relpath, file=relpath, criterion=n, fingerprint=digest)
            for n in numbers
        ]
    return Survey(tests=tests, modules={}, runner=generic_fingerprints(listed, read))


_NOT_WALKED = frozenset({".git", ".venv", "venv", "node_modules", "__pycache__", ".tox"})
MAX_WALKED_FOLDERS = 20_000


def remove_ignored_runner_files(project_dir: Path) -> list[str]:
    """Remove the runner's files git ignores (which `git clean -fd` leaves): after a refused
    step, a conftest hidden by a `.gitignore` must not stay behind for pytest to load."""
    kept = set(git_repo.listed_files(project_dir))
    strays = [path for path in _runner_files_anywhere(project_dir) if path not in kept]
    for relpath in strays:
        (project_dir / relpath).unlink(missing_ok=True)
    return strays


def _runner_files_anywhere(project_dir: Path) -> list[str]:
    """The runner's files by name wherever they are, a `.gitignore` notwithstanding (a bounded
    walk that skips environments and caches)."""
    found: list[str] = []
    for walked, (folder, folders, files) in enumerate(os.walk(project_dir)):
        if walked >= MAX_WALKED_FOLDERS:
            break
        folders[:] = sorted(f for f in folders if f not in _NOT_WALKED)
        base = Path(folder).relative_to(project_dir)
        found += [
            (base / name).as_posix()
            for name in files
            if name in RUNNER_NAMES
            or (base.as_posix() == "." and name in ROOT_RUNNER_NAMES)
            or shadows_the_runner((base / name).as_posix())
        ]
    return found


def _read(project_dir: Path, relpath: str) -> str | None:
    """The file's text; a link is never followed, but is there (pytest would follow it)."""
    path = project_dir / relpath
    try:
        if path.is_symlink():
            return f"\0link to {path.readlink()}"
        if not path.is_file():
            return None
        return read_own_text(path, MAX_SOURCE_BYTES, errors="replace")
    except OSError:
        return None
