"""What the locked tests read besides themselves, locked with them: the data files they open and
the helpers they import, wherever they are in the project, as ThoughtForge's own run recorded
them when the lock was taken (`record.Read`).

A read is the tests' when the code that made it is theirs: a locked test's module, a conftest or
test-folder helper (the runner's files), or a module they import that is test support itself:
one whose path names tests (`testutils/`, `test_helpers.py`, `fixtures/`) or whose function a
locked test's `assert` uses as the judge of another module's result (`assert close(c_to_f(100),
212)`). The code under test, and what it reads, is no part of it: a fix must be free to change
both. Python files are fingerprinted by their AST, any other file by its bytes.
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from thoughtforge.core.own_files import read_own_bytes, read_own_text
from thoughtforge.plugins.code.acceptance.lock import AcceptanceLock, LockedRead
from thoughtforge.plugins.code.acceptance.record import Read
from thoughtforge.plugins.code.acceptance.runner_files import source_fingerprint

NAMES_TESTS = re.compile(r"^(?:tests?|testing|conftest|fixtures?)$|^test|_tests?$", re.IGNORECASE)
"""A folder or module name that says it is test support."""
MAX_READ_BYTES = 200_000_000


def names_tests(relpath: str) -> bool:
    path = PurePosixPath(relpath)
    return any(NAMES_TESTS.search(part) for part in [*path.parts[:-1], path.stem])


def locked_reads(
    project_dir: Path, reads: list[Read], lock: AcceptanceLock
) -> dict[str, LockedRead]:
    """The files the locked tests read, each with its fingerprint and the tests that read it
    (none: read while pytest collected them, so it counts for all)."""
    tests = {test.file for test in lock.tests}
    own = tests | {path for path in lock.runner if path.endswith(".py")}
    modules = {r.module: r.path for r in reads if r.kind == "import" and r.module}
    judges = set().union(*(_judges(project_dir / path, modules) for path in sorted(tests)))
    found = _tests_side(reads, own, judges)
    locked: dict[str, LockedRead] = {}
    for path, readers in sorted(found.items()):
        fingerprint = fingerprint_of(project_dir, path)
        if fingerprint is None or path in tests or path in lock.runner:
            continue
        named = sorted(t for t in readers if t is not None)
        locked[path] = LockedRead(fingerprint=fingerprint, tests=[] if None in readers else named)
    return locked


def fingerprints_now(project_dir: Path, locked: Iterable[str]) -> dict[str, str]:
    """The fingerprints of the locked reads as the tree stands (a missing file left out)."""
    now = {path: fingerprint_of(project_dir, path) for path in locked}
    return {path: fingerprint for path, fingerprint in now.items() if fingerprint is not None}


def changed_reads(
    locked: dict[str, LockedRead], now: dict[str, str], free: set[str]
) -> list[tuple[str, str]]:
    """(path, how) of each locked read changed or gone, unless only tests in `free` (the
    tests of a criterion the person reworded) read it."""
    changed = []
    for path, read in sorted(locked.items()):
        if now.get(path) == read.fingerprint or (read.tests and set(read.tests) <= free):
            continue
        how = "deleted" if path not in now else "changed"
        changed.append((path, f"a file the locked tests read was {how}"))
    return changed


def fingerprint_of(project_dir: Path, relpath: str) -> str | None:
    path = project_dir / relpath
    try:
        if path.is_symlink():
            return hashlib.sha256(f"link to {path.readlink()}".encode()).hexdigest()[:32]
        if not path.is_file() or path.stat().st_size > MAX_READ_BYTES:
            return None
        if path.suffix == ".py":
            return source_fingerprint(read_own_text(path, MAX_READ_BYTES, errors="replace"))
        return hashlib.sha256(read_own_bytes(path, MAX_READ_BYTES)).hexdigest()[:32]
    except OSError:
        return None


def _tests_side(reads: list[Read], own: set[str], judges: set[str]) -> dict[str, set[str | None]]:
    """Path → the tests that read it, for each read made by the tests' own code, grown until
    the helpers they import that are test support are theirs too."""
    side = set(own)
    found: dict[str, set[str | None]] = {}
    grew = True
    while grew:
        grew = False
        for read in reads:
            if read.by not in side:
                continue
            support = read.kind == "open" or names_tests(read.path) or read.path in judges
            if not support:
                continue
            found.setdefault(read.path, set()).add(read.test)
            if read.kind == "import" and read.path not in side:
                side.add(read.path)
                grew = True
    return found


def _judges(test_module: Path, modules: dict[str, str]) -> set[str]:
    """The project modules whose function a test's `assert` calls on another project module's
    result: `assert close(c_to_f(100), 212)`, or `result = c_to_f(100)` then `assert
    close(result, 212)`. An `assert is_prime(7)` judges nothing but its own module."""
    try:
        tree = ast.parse(read_own_text(test_module, errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return set()
    origin = _Origins(tree, modules)
    judges: set[str] = set()
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        made: dict[str, set[str]] = {}
        for node in ast.walk(function):
            if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for name in (n for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)):
                    made.setdefault(name.id, set()).update(origin.calls(node.value))
        for node in ast.walk(function):
            if not isinstance(node, ast.Assert):
                continue
            test = node.test
            while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                test = test.operand
            if not isinstance(test, ast.Call) or (judge := origin.of(test.func)) is None:
                continue
            given = [*test.args, *(k.value for k in test.keywords)]
            subjects = set().union(*(origin.calls(a) for a in given))
            for name in (n for a in given for n in ast.walk(a) if isinstance(n, ast.Name)):
                subjects |= made.get(name.id, set())
            if subjects - {judge}:
                judges.add(judge)
    return judges


class _Origins:
    """The project module (its path) a called name comes from, by the module's imports."""

    def __init__(self, tree: ast.Module, modules: dict[str, str]) -> None:
        self.modules = modules
        self.names: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    submodule = f"{node.module}.{alias.name}"
                    known = submodule if submodule in modules else node.module
                    self.names[alias.asname or alias.name] = known
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    self.names[alias.asname or alias.name.split(".")[0]] = (
                        alias.name if alias.asname else alias.name.split(".")[0]
                    )

    def of(self, func: ast.expr) -> str | None:
        dotted: list[str] = []
        while isinstance(func, ast.Attribute):
            dotted.insert(0, func.attr)
            func = func.value
        if not isinstance(func, ast.Name) or func.id not in self.names:
            return None
        parts = [self.names[func.id], *dotted[:-1]]
        for end in range(len(parts), 0, -1):
            found = self.modules.get(".".join(parts[:end]))
            if found is not None:
                return found
        return None

    def calls(self, expr: ast.AST) -> set[str]:
        return {
            found
            for node in ast.walk(expr)
            if isinstance(node, ast.Call) and (found := self.of(node.func)) is not None
        }
