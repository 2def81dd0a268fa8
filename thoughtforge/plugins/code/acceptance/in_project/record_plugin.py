"""A pytest plugin ThoughtForge loads into its own run of the locked tests (`-p`): it records
what the tests read and how to call each test without pytest, into the file `--tf-record` names.

What the tests read: every project file opened for reading (but one the run wrote: its own
output) and every project module imported, each once with the project file whose code did it
(the innermost project frame; a file read by the import machinery is the import, not a read)
and the test running then. How to call a test: its
module, class and function, the fixtures it asks for, the interpreter and `sys.path` as pytest
set them, and the conftests pytest loaded (`plain_run` reads this).

As pytest ends (its reports written) the process exits at once, so no exit handler of the code
under test runs after them. It runs in the project's interpreter: standard library only.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import pytest

ROOT = os.path.realpath(os.getcwd())
"""The project: ThoughtForge runs pytest in it."""
NOT_THE_PROJECT = frozenset(
    {".git", ".venv", "venv", "node_modules", "__pycache__", ".tox", "site-packages"}
)
_reads: dict[tuple[str, str, str | None], None] = {}
"""(path, by, test) of each read, once, in the order they came."""
_imports: dict[tuple[str, str, str | None], None] = {}
_written: set[str] = set()
"""What the run wrote in the project: a file it reads back is its own output, not its data."""
_running: list[str | None] = [None]
_frames: dict[str, str] = {}
_record: dict[str, Any] = {}
_status: list[int] = [0]


def project_path(path: str) -> str | None:
    """`path` relative to the project (with `/`), or None outside it or in an environment."""
    if not path or path.startswith("<"):
        return None
    full = os.path.realpath(os.path.abspath(path))
    if not full.startswith(ROOT + os.sep):
        return None
    parts = full[len(ROOT) + 1 :].split(os.sep)
    return None if NOT_THE_PROJECT.intersection(parts) else "/".join(parts)


def _frame_path(filename: str) -> str:
    known = _frames.get(filename)
    if known is None:
        known = _frames[filename] = project_path(filename) or ""
    return known


def _innermost(frame: Any) -> tuple[str | None, bool]:
    """The project file whose code is innermost on the stack, and whether the import machinery
    ran inside it (the file is then read to be imported)."""
    importing = False
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith("<frozen importlib"):
            importing = True
        else:
            found = _frame_path(name)
            if found:
                return found, importing
        frame = frame.f_back
    return None, importing


def _reading(mode: Any, flags: Any) -> bool:
    if isinstance(mode, str):
        return not any(c in mode for c in "wax+")
    return isinstance(flags, int) and not flags & (os.O_WRONLY | os.O_RDWR)


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event == "open" and len(args) == 3:
        path, mode, flags = args
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        relpath = project_path(path) if isinstance(path, str) else None
        if relpath is None:
            return
        if not _reading(mode, flags):
            _written.add(relpath)
            return
        by, importing = _innermost(sys._getframe(1))
        if by is not None and not importing:
            _reads[(relpath, by, _running[0])] = None
    elif event == "import" and args and isinstance(args[0], str):
        by, _ = _innermost(sys._getframe(1))
        if by is not None:
            _imports[(args[0], by, _running[0])] = None


sys.addaudithook(_audit)


def pytest_addoption(parser: Any) -> None:
    parser.addoption("--tf-record", default=None)


def pytest_collection_finish(session: Any) -> None:
    items = []
    for item in session.items:
        function = getattr(item, "function", None)
        module = getattr(item, "module", None)
        if function is None or module is None:
            continue
        spec = getattr(item, "callspec", None)
        params = sorted(spec.params) if spec is not None else []
        cls = getattr(item, "cls", None)
        info = getattr(item, "_fixtureinfo", None)
        items.append(
            {
                "node": item.nodeid.split("[")[0],
                "module": module.__name__,
                "file": module.__file__,
                "cls": cls.__name__ if cls is not None else None,
                "function": getattr(item, "originalname", None) or item.name,
                "fixtures": [f for f in item.fixturenames if f not in params],
                "wanted": [f for f in getattr(info, "initialnames", ()) if f not in params],
                "defined": {f: _fixture(info, f) for f in item.fixturenames if f not in params},
                "params": params,
            }
        )
    _record.update(
        items=items,
        sys_path=list(sys.path),
        executable=sys.executable,
        conftests=[
            [name, path]
            for name, module in list(sys.modules.items())
            if os.path.basename(path := getattr(module, "__file__", None) or "") == "conftest.py"
            and project_path(path)
        ],
    )


def _fixture(info: Any, name: str) -> dict[str, Any] | None:
    """Where the fixture `name` a test gets is defined, its scope and what it asks for; None
    when pytest's record of it is not there."""
    chain = getattr(info, "name2fixturedefs", {}).get(name)
    if not chain:
        return None
    definition = chain[-1]
    function = getattr(definition, "func", None)
    return {
        "module": getattr(function, "__module__", None),
        "qualname": getattr(function, "__qualname__", None),
        "scope": str(getattr(definition, "scope", "function")),
        "argnames": list(getattr(definition, "argnames", ())),
        "params": getattr(definition, "params", None) is not None,
    }


def pytest_runtest_logstart(nodeid: str) -> None:
    _running[0] = nodeid.split("[")[0]


def pytest_runtest_logfinish(nodeid: str) -> None:
    _running[0] = None


def pytest_sessionfinish(session: Any, exitstatus: int) -> None:
    _status[0] = int(exitstatus)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: Any) -> None:
    target = config.getoption("--tf-record")
    if target:
        modules = {}
        for name in {module for module, _, _ in _imports}:
            found = project_path(getattr(sys.modules.get(name), "__file__", None) or "")
            if found:
                modules[name] = found
        reads = [
            {"kind": "open", "path": path, "by": by, "test": test}
            for path, by, test in _reads
            if path not in _written
        ]
        reads += [
            {"kind": "import", "path": modules[module], "module": module, "by": by, "test": test}
            for module, by, test in _imports
            if module in modules
        ]
        with open(target, "w", encoding="utf-8") as out:
            json.dump({**_record, "reads": reads, "modules": modules}, out)
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(_status[0])
