"""What pytest reads before it runs a test, besides the test's own module: its configuration
(the ini files and the `[tool.pytest]`, `[tool:pytest]` and `[pytest]` sections), every
`conftest.py`, the support modules of the test folders (`__init__.py`, helpers), the
interpreter's start-up hooks (`sitecustomize.py`, `usercustomize.py`), and a module at the root
named like the runner's own (`pytest.py`, a `pluggy/` package): `python -m pytest` puts the root
first on the path, so it would run instead of the real one.

A configuration file counts in any folder: pytest looks for it from the tests it is given
upwards, so a `tests/pytest.ini` beside `tests/test_calc.py` is read before the root's.

Each is fingerprinted so that a step that changes any of them (a `--deselect` or `-k` in
`addopts`, a `collect_ignore`, a conftest hook that turns failures into passes, a new
`pytest.ini` that takes precedence) is seen, whatever words it uses. Python sources are
fingerprinted by their AST (comments and formatting are free); configuration by its parsed
values.
"""

from __future__ import annotations

import ast
import configparser
import hashlib
import json
import re
import tomllib
from collections.abc import Callable
from pathlib import PurePosixPath

from thoughtforge.bounded_input import parse_json
from thoughtforge.plugins.code.acceptance.python_tests import RUNNER_MODULES, TEST_FILE

WHOLE_FILES = ("pytest.ini", ".pytest.ini", "pytest.toml", ".pytest.toml")
SECTIONS = {"setup.cfg": "tool:pytest", "tox.ini": "pytest"}
START_UP = ("sitecustomize.py", "usercustomize.py")
TEST_FOLDERS = frozenset({"test", "tests", "testing"})
RUNNER_NAMES = frozenset({"conftest.py", *WHOLE_FILES, *SECTIONS, "pyproject.toml"})
"""Runner files that count in any folder."""
ROOT_RUNNER_NAMES = frozenset(START_UP)
"""Runner files that count at the project's root."""
SHADOWED = frozenset({*RUNNER_MODULES, "iniconfig", "packaging", "exceptiongroup", "tomli"})
"""The modules pytest is made of: one at the project's root is imported in their place."""

Reader = Callable[[str], str | None]
"""A file's text by its path in the project, or None when it is not there."""


def runner_fingerprints(listed: list[str], read: Reader) -> dict[str, str]:
    """Path → fingerprint of every file the runner reads before the tests (absent ones left out)."""
    found: dict[str, str] = {}
    for relpath in listed:
        text = read(relpath)
        if text is None:
            continue
        fingerprint = _fingerprint(relpath, text)
        if fingerprint is not None:
            found[relpath] = fingerprint
    return found


GENERIC_WHOLE = re.compile(
    r"^(?:[^/]*/)*(?:jest|vitest|karma|ava|playwright|cypress)\.config\.[a-z]+$"
    r"|^(?:[^/]*/)*\.mocharc(?:\.[a-z]+)?$|^(?:GNUmakefile|makefile|Makefile)$"
    r"|^\.cargo/config(?:\.toml)?$|^\.npmrc$"
)
PACKAGE_KEYS = ("scripts", "jest", "mocha", "ava", "vitest", "c8", "nyc")
CARGO_KEYS = ("test", "lib", "bench", "profile", "workspace", "features")


def generic_fingerprints(listed: list[str], read: Reader) -> dict[str, str]:
    """The test configuration of a project in another language: a test framework's config
    file, the Makefile, `package.json`'s scripts and framework keys, `Cargo.toml`'s targets."""
    found: dict[str, str] = {}
    for relpath in listed:
        if not (GENERIC_WHOLE.match(relpath) or relpath in ("package.json", "Cargo.toml")):
            continue
        text = read(relpath)
        if text is None:
            continue
        if relpath == "package.json":
            found[relpath] = _keys(relpath, text, PACKAGE_KEYS)
        elif relpath == "Cargo.toml":
            found[relpath] = _keys(relpath, text, CARGO_KEYS)
        else:
            found[relpath] = _digest("\n".join(line.rstrip() for line in text.strip().splitlines()))
    return found


def _keys(relpath: str, text: str, keys: tuple[str, ...]) -> str:
    try:
        data = parse_json(text, relpath) if relpath.endswith(".json") else tomllib.loads(text)
    except (ValueError, tomllib.TOMLDecodeError):
        return _digest("unparsable:" + text)
    picked = {key: data.get(key) for key in keys} if isinstance(data, dict) else data
    return _digest(json.dumps(picked, sort_keys=True, default=str))


def changed_runner_files(locked: dict[str, str], now: dict[str, str]) -> list[str]:
    """The runner's files added, removed or changed since they were locked."""
    return sorted(path for path in {*locked, *now} if locked.get(path) != now.get(path))


def is_runner_file(relpath: str) -> bool:
    """A Python file the runner loads as its own: a conftest, a start-up hook, test support."""
    path = PurePosixPath(relpath)
    return (
        path.name == "conftest.py"
        or relpath in START_UP
        or _support_module(path)
        or shadows_the_runner(relpath)
    )


def shadows_the_runner(relpath: str) -> bool:
    """A Python file at the root, or in a package at the root, named like a module of pytest."""
    path = PurePosixPath(relpath)
    if path.suffix != ".py":
        return False
    top = path.stem if len(path.parts) == 1 else path.parts[0]
    return top in SHADOWED


def _fingerprint(relpath: str, text: str) -> str | None:
    path = PurePosixPath(relpath)
    if path.name in WHOLE_FILES:
        return _digest("\n".join(line.rstrip() for line in text.strip().splitlines()))
    if path.name == "pyproject.toml":
        return _pyproject(text)
    if path.name in SECTIONS:
        return _ini_section(text, SECTIONS[path.name])
    if path.suffix != ".py":
        return None
    return source_fingerprint(text) if is_runner_file(relpath) else None


def _support_module(path: PurePosixPath) -> bool:
    """A module of a test folder that is not itself a test module: `__init__.py`, helpers."""
    in_tests = any(part.lower() in TEST_FOLDERS for part in path.parts[:-1])
    return in_tests and not TEST_FILE.search(path.as_posix())


def source_fingerprint(text: str) -> str:
    """A Python source by its AST: comments and formatting are free."""
    try:
        return _digest(ast.dump(ast.parse(text), include_attributes=False))
    except (SyntaxError, ValueError):
        return _digest("unparsable:" + text)


def _pyproject(text: str) -> str | None:
    try:
        tool = tomllib.loads(text).get("tool")
    except tomllib.TOMLDecodeError:
        return _digest("unparsable:" + text)
    section = tool.get("pytest") if isinstance(tool, dict) else None
    return None if section is None else _digest(json.dumps(section, sort_keys=True, default=str))


def _ini_section(text: str, name: str) -> str | None:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return _digest("unparsable:" + text)
    if not parser.has_section(name):
        return None
    return _digest(json.dumps(dict(parser.items(name, raw=True)), sort_keys=True))


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]
