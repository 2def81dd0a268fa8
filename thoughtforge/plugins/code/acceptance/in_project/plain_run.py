"""ThoughtForge's second run of the locked tests, outside pytest's runtime: a plain Python
process that imports each locked test's module and calls the test itself, so that code which
answers right only under pytest is seen. Run as `python plain_run.py RECORD NODES OUT` in the
project, with the record `record_plugin` wrote and the node ids (a JSON list: on the command
line the code under test would read them); it writes each node's result to OUT and exits.

What the code under test would see of pytest is not there: no `PYTEST_*` variables (ThoughtForge
starts it without them), no runner module in `sys.modules` while a test runs (they are set
aside and put back after), no pytest frames on the stack, and no test by its name: every
function named `test*` and class named `Test*` of a test module is renamed (`check_<n>`,
`Checks<n>`), and a test module outside a package is imported under another name too.

Each `==` and `!=` of a test module's `assert` is judged by ThoughtForge (`_equal`): where one
side is a value of a class of the project's own that decides its own equality (`__eq__` or
`__ne__`) and the other holds nothing of the project's (a literal, a number read from a file,
`pytest.approx`), they are compared by plain value: a subclass of a built-in number, string or
bytes by the value it holds, anything else not at all (it fails). The test asked for a value,
not for whatever the code's class calls equal.

A test is called with the fixtures `tmp_path` and `monkeypatch` and its own `parametrize`
cases; one that needs another fixture (a conftest's, `capsys`, an autouse one) is "unchecked"
and its verdict is pytest's alone. Standard library only (it runs in the project's
interpreter; `monkeypatch` borrows pytest's class).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import itertools
import json
import os
import shutil
import sys
import tempfile
import traceback
import types
from pathlib import Path
from typing import Any

ROOT = os.path.realpath(os.getcwd())
RUNNER_MODULES = frozenset({"pytest", "_pytest", "pluggy", "py", "iniconfig"})
FIXTURES = frozenset({"tmp_path", "monkeypatch"})
"""The fixtures a test may ask for here (and those they stand on)."""
BENEATH = frozenset({"tmp_path_factory", "request"})
EQUAL = "__thoughtforge_equal__"
SHOWN = "__thoughtforge_shown__"
"""The file name a judged module's code carries (its own, or another when it was renamed)."""
NOT_THE_PROJECT = frozenset(
    {".git", ".venv", "venv", "node_modules", "__pycache__", ".tox", "site-packages"}
)
WHY_CHARS = 300


class Unchecked(Exception):
    """A test this run cannot call as pytest would (a fixture it does not have)."""


# --- the comparison ----------------------------------------------------------------------------

_own: dict[type, bool] = {}


def _of_the_project(cls: type) -> bool:
    module = sys.modules.get(getattr(cls, "__module__", "") or "")
    path = getattr(module, "__file__", None)
    if not path:
        return False
    full = os.path.realpath(path)
    if not full.startswith(ROOT + os.sep):
        return False
    return not NOT_THE_PROJECT.intersection(full[len(ROOT) + 1 :].split(os.sep))


def _decides_equality(cls: type) -> bool:
    """A class of the project's own, or with one in its bases, defining `__eq__` or `__ne__`."""
    if cls not in _own:
        _own[cls] = any(
            _of_the_project(base) and ("__eq__" in vars(base) or "__ne__" in vars(base))
            for base in cls.__mro__
        )
    return _own[cls]


def _contains(value: Any, wanted: Any, depth: int = 0) -> bool:
    if wanted(type(value)):
        return True
    if depth >= 4 or type(value) not in (list, tuple, dict, set, frozenset):
        return False
    items = list(value.items()) if isinstance(value, dict) else list(value)
    return any(_contains(item, wanted, depth + 1) for item in items[:1000])


HELD = (int, float, complex, str, bytes)
"""The built-in values a class may hold by subclassing; `int.__int__` and the like read it."""


def _plain(value: Any) -> Any:
    if type(value) in (list, tuple):
        return type(value)(_plain(item) for item in value)
    if type(value) is dict:
        return {key: _plain(item) for key, item in value.items()}
    if not _decides_equality(type(value)):
        return value
    for base in HELD:
        if isinstance(value, base):
            return getattr(base, f"__{base.__name__}__")(value)
    raise AssertionError(
        f"the result is a {type(value).__qualname__}, a class of the project's own that "
        "decides by itself what it equals; the locked test expects a plain value"
    )


def _equal(left: Any, right: Any, equal: bool) -> Any:
    """`left == right` (or `!=`) as a locked test's assertion means it."""
    decides = _contains(left, _decides_equality) or _contains(right, _decides_equality)
    foreign = not (_contains(left, _of_the_project) and _contains(right, _of_the_project))
    if not (decides and foreign):
        return left == right if equal else left != right
    same = _plain(left) == _plain(right)
    return same if equal else not same


# --- the test module, renamed and judged -------------------------------------------------------


class _Renamed(ast.NodeTransformer):
    """Every `test*` function and `Test*` class renamed (and each use of those names), and each
    `==`/`!=` of an `assert` handed to `_equal`."""

    def __init__(self, tree: ast.Module) -> None:
        self.names: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and (
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

    def visit_Assert(self, node: ast.Assert) -> ast.Assert:
        node.test = _Judged().visit(self.visit(node.test))
        if node.msg is not None:
            node.msg = self.visit(node.msg)
        return node


class _Judged(ast.NodeTransformer):
    def visit_Compare(self, node: ast.Compare) -> ast.expr:
        self.generic_visit(node)
        if len(node.ops) != 1 or not isinstance(node.ops[0], ast.Eq | ast.NotEq):
            return node
        equal = ast.Constant(isinstance(node.ops[0], ast.Eq))
        call = ast.Call(ast.Name(EQUAL, ast.Load()), [node.left, node.comparators[0], equal], [])
        return ast.copy_location(call, node)


def _load(name: str, path: str, judged: bool, number: int) -> tuple[types.ModuleType, dict[str, str]]:
    """The module at `path`, executed (renamed and judged when `judged`) and registered."""
    source = Path(path).read_bytes()
    tree = ast.parse(source, path)
    names: dict[str, str] = {}
    shown = path
    if judged:
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
    module.__dict__[EQUAL] = _equal
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
        names, values = (list(mark.args) + [mark.kwargs.get("argvalues")])[:2]
        if isinstance(names, str):
            names = [n.strip() for n in names.split(",") if n.strip()]
        group = []
        for value in values:
            if hasattr(value, "marks") and hasattr(value, "values"):  # pytest.param(...)
                args = tuple(value.values)
            else:
                args = (value,) if len(names) == 1 else tuple(value)
            group.append(dict(zip(names, args, strict=False)))
        groups.append(group)
    cases = [{k: v for case in combo for k, v in case.items()} for combo in itertools.product(*groups)]
    if not cases or set(params) - set(cases[0]):
        raise Unchecked("parameters set outside its own parametrize marks")
    return cases


def _call(function: Any, kwargs: dict[str, Any], fixtures: list[str]) -> None:
    if inspect.iscoroutinefunction(function):
        raise Unchecked("an async test")
    scratch = None
    patch = None
    given = dict(kwargs)
    if "tmp_path" in fixtures:
        scratch = given["tmp_path"] = Path(tempfile.mkdtemp(prefix="check-"))
    if "monkeypatch" in fixtures:
        from _pytest.monkeypatch import MonkeyPatch

        patch = given["monkeypatch"] = MonkeyPatch()
    aside = _runner_set_aside()
    try:
        function(**given)
    finally:
        sys.modules.update(aside)
        if patch is not None:
            patch.undo()
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


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


def _check(item: dict[str, Any], modules: dict[str, Any]) -> dict[str, str]:
    unknown = sorted(set(item["fixtures"]) - FIXTURES - BENEATH)
    if unknown:
        return {"result": "unchecked", "why": f"it needs the fixtures {', '.join(unknown)}"}
    module, names = modules[item["file"]]
    try:
        if item["cls"]:
            owner = getattr(module, names.get(item["cls"], item["cls"]))()
        else:
            owner = module
        function = getattr(owner, names.get(item["function"], item["function"]))
        for case in _cases(function, item["params"]):
            _call(function, case, item["fixtures"])
    except Unchecked as exc:
        return {"result": "unchecked", "why": str(exc)}
    except BaseException as exc:  # noqa: BLE001  # pytest.skip's outcome is a BaseException too
        return {"result": "failed", "why": _why(exc, module)[:WHY_CHARS]}
    return {"result": "passed", "why": ""}


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
    wanted = [r["module"] for r in record.get("reads", []) if r["kind"] == "import" and r["by"] == relpath]
    aside = _runner_set_aside()
    try:
        for name in wanted:
            if name not in sys.modules:
                try:
                    importlib.import_module(name)
                except BaseException:  # noqa: BLE001, S112  # the test module's import reports it
                    continue
    finally:
        sys.modules.update(aside)


def run(record: dict[str, Any], nodes: list[str]) -> dict[str, dict[str, str]]:
    """Each node's result: passed, failed (and why) or unchecked (and why)."""
    sys.path[:] = [*record["sys_path"], *[p for p in sys.path if p not in record["sys_path"]]]
    for name, path in record.get("conftests", []):
        if name not in sys.modules:
            _load(name, path, judged=False, number=0)
    items = {item["node"]: item for item in record["items"]}
    modules: dict[str, Any] = {}
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
            except BaseException as exc:  # noqa: BLE001  # its module does not import outside pytest
                why = f"its module did not import: {type(exc).__name__}: {exc}"[:WHY_CHARS]
                results[node] = {"result": "failed", "why": why}
                continue
        results[node] = _check(item, modules)
    return results


if __name__ == "__main__":
    _record_path, _nodes_path, _out_path = sys.argv[1:]
    with open(_record_path, encoding="utf-8") as _record, open(_nodes_path, encoding="utf-8") as _nodes:
        _results = run(json.load(_record), json.load(_nodes))
    with open(_out_path, "w", encoding="utf-8") as _out:
        json.dump(_results, _out)
    for _stream in (sys.stdout, sys.stderr):
        _stream.flush()
    os._exit(0)
