"""ThoughtForge's second run of the locked tests, outside pytest's runtime: a plain Python
process that imports each locked test's module and calls the test itself, so that code which
answers right only under pytest is seen. Run as `python plain_run.py RECORD NODES OUT` in the
project, with the record `record_plugin` wrote and the node ids (a JSON list: on the command
line the code under test would read them); it writes each node's result to OUT and exits.

What the code under test would see of pytest is not there: no `PYTEST_*` variables (ThoughtForge
starts it without them), no runner module in `sys.modules` while a test and its fixtures run or
while the code the test module imports is first imported (they are set aside and put back
after), no pytest frames on the stack, and no test by its name: every function named `test*`
and class named `Test*` of a test module is renamed (`check_<n>`, `Checks<n>`), and a test
module outside a package is imported under another name too. Each `==` and `!=` of its
`assert`s is judged by ThoughtForge (`plain_equality`).

A test gets its own `parametrize` cases and its fixtures (`plain_fixtures`); one that needs a
fixture the plain run cannot make as pytest does is "unchecked": its verdict is pytest's alone.
Runs in the project's interpreter (Python 3.8 on), beside its two siblings (copied with a
`thoughtforge_` prefix, imported before the project's `sys.path` is set): standard library only.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import importlib.util
import inspect
import itertools
import json
import os
import sys
import traceback
import types
import unittest
from pathlib import Path
from typing import Any

from thoughtforge_plain_equality import (  # type: ignore[import-not-found]  # its scratch copy
    ROOT,
    TESTS,
    judged,
)
from thoughtforge_plain_fixtures import (  # type: ignore[import-not-found]  # its scratch copy
    RUNNER_MODULES,
    Fixtures,
    Unchecked,
)

EQUAL = "__thoughtforge_equal__"
SHOWN = "__thoughtforge_shown__"
"""The file name a judged module's code carries (its own, or another when it was renamed)."""
WHY_CHARS = 300


# --- the test module, renamed and judged -------------------------------------------------------


class _Renamed(ast.NodeTransformer):
    """Every `test*` function and `Test*` class renamed (and each use of those names), and each
    `==`/`!=` of an `assert` handed to `judged`."""

    def __init__(self, tree: ast.Module) -> None:
        self.names: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                node.name.startswith("test")
            ):
                self.names.setdefault(node.name, f"check_{len(self.names) + 1}")
            elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
                self.names.setdefault(node.name, f"Checks{len(self.names) + 1}")

    def _rename(self, node: Any) -> Any:
        node.name = self.names.get(node.name, node.name)
        return self.generic_visit(node)

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _rename

    def visit_Name(self, node: ast.Name) -> ast.Name:
        node.id = self.names.get(node.id, node.id)
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.Attribute:
        """`self.test_x`, `cls.test_x`, `TestA.test_x`: a renamed method by its new name."""
        owner = node.value
        if isinstance(owner, ast.Name) and (owner.id in ("self", "cls") or owner.id in self.names):
            node.attr = self.names.get(node.attr, node.attr)
        return self.generic_visit(node)  # type: ignore[return-value]

    def visit_Assert(self, node: ast.Assert) -> ast.Assert:
        node.test = _Judged().visit(self.visit(node.test))
        if node.msg is not None:
            node.msg = self.visit(node.msg)
        return node


class _Judged(ast.NodeTransformer):
    def visit_Compare(self, node: ast.Compare) -> ast.expr:
        self.generic_visit(node)
        if len(node.ops) != 1 or not isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
            return node
        equal = ast.Constant(isinstance(node.ops[0], ast.Eq))
        call = ast.Call(ast.Name(EQUAL, ast.Load()), [node.left, node.comparators[0], equal], [])
        return ast.copy_location(call, node)


def _load(name: str, path: str, test: bool, number: int) -> tuple[types.ModuleType, dict[str, str]]:
    """The module at `path`, executed (renamed and judged when a `test` module) and
    registered."""
    source = Path(path).read_bytes()
    tree = ast.parse(source, path)
    names: dict[str, str] = {}
    shown = path
    if test:
        renamer = _Renamed(tree)
        tree = ast.fix_missing_locations(renamer.visit(tree))
        names = renamer.names
        if "." not in name:  # no package: no relative import needs its name
            name = f"checks_{number}"
            shown = os.path.join(os.path.dirname(os.path.abspath(__file__)), f"{name}.py")
    package = name.rpartition(".")[0]
    if package:
        importlib.import_module(package)
    module = types.ModuleType(name)
    module.__file__ = path
    module.__package__ = package
    module.__spec__ = importlib.util.spec_from_file_location(name, path)
    module.__dict__[EQUAL] = judged
    module.__dict__[SHOWN] = shown
    sys.modules[name] = module
    exec(compile(tree, shown, "exec"), module.__dict__)
    return module, names


# --- one test ----------------------------------------------------------------------------------


def _cases(function: Any, params: list[str]) -> list[dict[str, Any]]:
    """The keyword arguments of each `parametrize` case (stacked marks multiply)."""
    if not params:
        return [{}]
    groups: list[list[dict[str, Any]]] = []
    for mark in getattr(function, "pytestmark", []):
        if getattr(mark, "name", None) != "parametrize":
            continue
        if mark.kwargs.get("indirect"):
            raise Unchecked("an indirect parametrize")
        names, values = [*mark.args, mark.kwargs.get("argvalues")][:2]
        if isinstance(names, str):
            names = [n.strip() for n in names.split(",") if n.strip()]
        group = []
        for value in values:
            if hasattr(value, "marks") and hasattr(value, "values"):  # pytest.param(...)
                args = tuple(value.values)
            else:
                args = (value,) if len(names) == 1 else tuple(value)
            group.append(dict(zip(names, args)))  # noqa: B905  # older interpreters
        groups.append(group)
    cases = [
        {k: v for case in combo for k, v in case.items()} for combo in itertools.product(*groups)
    ]
    if not cases or set(params) - set(cases[0]):
        raise Unchecked("parameters set outside its own parametrize marks")
    return cases


def _why(exc: BaseException, module: types.ModuleType) -> str:
    """What was raised, and the test's line that raised it."""
    said = f"{type(exc).__name__}: {exc}".rstrip(": ")
    shown = getattr(module, SHOWN, None)
    lines = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if f.filename == shown]
    if not lines or not lines[-1]:
        return said
    try:
        line = Path(module.__file__ or "").read_text(errors="replace").splitlines()[lines[-1] - 1]
    except (OSError, IndexError):
        return said
    return f"{said} at line {lines[-1]}: {line.strip()}"


def _check(item: dict[str, Any], loaded: dict[str, Any], fixtures: Fixtures) -> dict[str, str]:
    module, names = loaded[item["file"]]
    cls = item["cls"]
    scopes = {
        "function": f"function:{item['node']}",
        "class": f"class:{item['file']}::{cls}",
        "module": f"module:{item['file']}",
        "package": "session",
        "session": "session",
    }
    wanted = item.get("wanted") or item["fixtures"]
    try:
        method = names.get(item["function"], item["function"])
        kind = getattr(module, names.get(cls, cls)) if cls else None
        if isinstance(kind, type) and issubclass(kind, unittest.TestCase):
            return _unittest(kind, method, module)
        owner = kind() if kind is not None else module
        function = getattr(owner, method)
        if inspect.iscoroutinefunction(function):
            raise Unchecked("an async test")
        asks = set(inspect.signature(function).parameters)
        for case in _cases(function, item["params"]):
            aside = _runner_set_aside()
            try:
                made = {name: fixtures.value(name, item, scopes) for name in wanted}
                function(**case, **{k: v for k, v in made.items() if k in asks})
            finally:
                try:
                    fixtures.end(scopes["function"])
                finally:
                    sys.modules.update(aside)
    except Unchecked as exc:
        return {"result": "unchecked", "why": str(exc)}
    except BaseException as exc:  # noqa: BLE001  # pytest.skip's outcome is a BaseException too
        return {"result": "failed", "why": _why(exc, module)[:WHY_CHARS]}
    return {"result": "passed", "why": ""}


def _unittest(kind: type, method: str, module: types.ModuleType) -> dict[str, str]:
    """A `unittest.TestCase` test, run as unittest runs it (its `setUp`, its `tearDown`)."""
    outcome = unittest.TestResult()
    aside = _runner_set_aside()
    try:
        kind(method).run(outcome)
    finally:
        sys.modules.update(aside)
    problems = outcome.failures + outcome.errors + outcome.unexpectedSuccesses
    if outcome.wasSuccessful() and not outcome.skipped and not problems:
        return {"result": "passed", "why": ""}
    if outcome.skipped:
        return {"result": "failed", "why": f"skipped: {outcome.skipped[0][1]}"[:WHY_CHARS]}
    said = problems[0][1] if problems and isinstance(problems[0], tuple) else "it did not pass"
    return {"result": "failed", "why": said.strip().splitlines()[-1][:WHY_CHARS]}


def _runner_set_aside() -> dict[str, Any]:
    aside = {n: m for n, m in sys.modules.items() if n.split(".")[0] in RUNNER_MODULES}
    for name in aside:
        del sys.modules[name]
    return aside


def _code_first(record: dict[str, Any], test_file: str) -> None:
    """The project modules the test module imports, imported before it with the runner set
    aside: code that decides as it is imported sees no pytest (one that fails here is left to
    the test module's own import, which reports it)."""
    relpath = os.path.relpath(os.path.realpath(test_file), ROOT).replace(os.sep, "/")
    wanted = [
        r["module"] for r in record.get("reads", []) if r["kind"] == "import" and r["by"] == relpath
    ]
    aside = _runner_set_aside()
    try:
        for name in wanted:
            if name not in sys.modules:
                try:
                    importlib.import_module(name)
                except BaseException:  # noqa: BLE001  # the test module's import reports it
                    continue
    finally:
        sys.modules.update(aside)


def run(record: dict[str, Any], nodes: list[str]) -> dict[str, dict[str, str]]:
    """Each node's result: passed, failed (and why) or unchecked (and why)."""
    sys.path[:] = [*record["sys_path"], *[p for p in sys.path if p not in record["sys_path"]]]
    for name, path in record.get("conftests", []):
        if name not in sys.modules:
            _load(name, path, test=False, number=0)
    items = {item["node"]: item for item in record["items"]}
    for path in [p for _, p in record.get("conftests", [])] + [i["file"] for i in items.values()]:
        TESTS.add(os.path.realpath(path))
        if os.path.dirname(os.path.realpath(path)) != ROOT:
            TESTS.add(os.path.dirname(os.path.realpath(path)))
    modules: dict[str, Any] = {}
    fixtures = Fixtures({})
    results: dict[str, dict[str, str]] = {}
    for node in nodes:
        item = items.get(node)
        if item is None:
            results[node] = {"result": "failed", "why": "pytest's record does not name it"}
            continue
        if item["file"] not in modules:
            _code_first(record, item["file"])
            try:
                modules[item["file"]] = _load(item["module"], item["file"], True, len(modules) + 1)
                fixtures.modules[item["module"]] = modules[item["file"]][0]
            except BaseException as exc:  # noqa: BLE001  # its module does not import outside pytest
                why = f"its module did not import: {type(exc).__name__}: {exc}"[:WHY_CHARS]
                results[node] = {"result": "failed", "why": why}
                continue
        results[node] = _check(item, modules, fixtures)
    aside = _runner_set_aside()
    try:
        with contextlib.suppress(BaseException):  # the tests have their verdicts by now
            fixtures.end_all()
    finally:
        sys.modules.update(aside)
    return results


if __name__ == "__main__":
    _record_path, _nodes_path, _out_path = sys.argv[1:]
    with open(_record_path, encoding="utf-8") as _record:
        _recorded = json.load(_record)
    with open(_nodes_path, encoding="utf-8") as _nodes:
        _results = run(_recorded, json.load(_nodes))
    with open(_out_path, "w", encoding="utf-8") as _out:
        json.dump(_results, _out)
    for _stream in (sys.stdout, sys.stderr):
        _stream.flush()
    os._exit(0)
