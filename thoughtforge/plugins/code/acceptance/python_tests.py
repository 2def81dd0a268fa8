"""What a pytest test is, read from its source: its node id, the criterion its name claims, and a
fingerprint of everything that decides what it checks.

A fingerprint is a hash of AST dumps (no line numbers, no comments, no formatting), so moving or
reformatting a test keeps it, while a decorator (`skip`, `skipif`, `xfail`), a `pytest.skip()`
in its body, a changed expected value or assertion, or a changed module or class around it
(a constant, a helper, a fixture, a `pytestmark`) changes it.

What counts as a test's context: every statement of its module and class that is not itself
another test, except imports, which are compared apart (`ModuleContext`) so that a fixer may add
an import that binds a name the module did not bind. Another test counts as context too when
defining it runs code (a decorator, a default or an annotation beyond `pytest.mark...` and
literals): that code runs at import, before the locked test does.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
from typing import TypeGuard

from pydantic import BaseModel

CRITERION_NAME = re.compile(r"^test_ac_?(\d+)(?:_|$)", re.IGNORECASE)
"""The naming convention: `test_ac_<n>_<words>` checks acceptance criterion n."""
TEST_FILE = re.compile(r"(?:^|/)(?:test_[^/]*|[^/]*_test)\.py$")
"""pytest's default `python_files`."""


class FoundTest(BaseModel):
    node_id: str
    file: str
    criterion: int | None
    fingerprint: str


class ModuleContext(BaseModel):
    """A test module's statements that are not tests: hashed, and its imports apart."""

    context: str
    imports: list[str]
    """Each import as normalised source (`ast.unparse`)."""
    bound: list[str]
    """Every top-level name the module binds, imports included."""


RUNNER_MODULES = frozenset({"pytest", "_pytest", "pluggy", "py"})
"""What the code under test has no reason to import: the test runner's own machinery."""


RUNNER_WORD = re.compile(
    r"(?:_?pytest|pluggy)(?:\.[\w.]+)?|PYTEST_\w+|-*junit-?xml=?", re.IGNORECASE
)
"""A string that names the runner: a module of it (`sys.modules['_pytest.python']`), its
variables (`PYTEST_CURRENT_TEST`) or its report (`--junitxml=`)."""


def reaches_into_runner(source: str) -> list[str]:
    """The test runner's modules a source file imports or names in a string (the code under test
    registering hooks, rewriting reports or answering differently under pytest is a test change
    in disguise); a file that does not parse, none."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    found: set[str] = set()
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name | ast.Attribute)
            and (node.func.id if isinstance(node.func, ast.Name) else node.func.attr)
            in ("__import__", "import_module")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            names = [node.args[0].value]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if RUNNER_WORD.fullmatch(node.value.strip()):
                found.add(node.value.strip())
            continue
        elif _equal_to_anything(node):
            found.add(ALWAYS_EQUAL)
            continue
        found.update(name.split(".")[0] for name in names if name.split(".")[0] in RUNNER_MODULES)
    return sorted(found)


ALWAYS_EQUAL = "an __eq__ that is true of anything"
"""What a result that passes any `assert result == expected` is called in a refusal."""


def _equal_to_anything(node: ast.AST) -> bool:
    """An `__eq__` defined (or assigned a lambda) to answer True whatever it is compared with:
    the test's assertion passes while the code is wrong."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == "__eq__":
        returns = [n for n in ast.walk(node) if isinstance(n, ast.Return)]
        return bool(returns) and all(_true(r.value) for r in returns)
    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda):
        named = any(isinstance(t, ast.Name) and t.id == "__eq__" for t in node.targets)
        return named and _true(node.value.body)
    return False


def _true(value: ast.expr | None) -> bool:
    return isinstance(value, ast.Constant) and value.value is True


class ReadModule(BaseModel):
    tests: list[FoundTest]
    context: ModuleContext


def criterion_of(name: str) -> int | None:
    found = CRITERION_NAME.match(name)
    return int(found.group(1)) if found else None


def read_module(relpath: str, source: str) -> ReadModule | None:
    """The tests of one module and its context; None when it does not parse (pytest would
    fail to collect it, which the acceptance run reports)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    imports = [stmt for stmt in tree.body if isinstance(stmt, ast.Import | ast.ImportFrom)]
    others = [stmt for stmt in tree.body if not isinstance(stmt, ast.Import | ast.ImportFrom)]
    context = _digest([_dump(stmt) for stmt in others if not _is_plain_test(stmt)])
    tests: dict[str, FoundTest] = {}  # a later definition of a name replaces the earlier one
    for stmt in tree.body:
        if _is_test_function(stmt):
            found = _found(relpath, [stmt.name], context, "", stmt)
            tests[found.node_id] = found
        elif isinstance(stmt, ast.ClassDef) and stmt.name.startswith("Test"):
            around = _class_context(stmt)
            for inner in stmt.body:
                if _is_test_function(inner):
                    found = _found(relpath, [stmt.name, inner.name], context, around, inner)
                    tests[found.node_id] = found
    return ReadModule(
        tests=list(tests.values()),
        context=ModuleContext(
            context=context,
            imports=[ast.unparse(stmt) for stmt in imports],
            bound=sorted(_bound_names(tree.body)),
        ),
    )


def context_kept(locked: ModuleContext, now: ModuleContext) -> str | None:
    """Why `now` is not the locked module's context, or None: the same statements, every
    locked import still there, and any new import binding only names the module did not bind."""
    if now.context != locked.context:
        return "a statement around its tests changed (a constant, helper, fixture or marker)"
    missing = [line for line in locked.imports if line not in now.imports]
    if missing:
        return "an import it had was removed or changed"
    added = _import_names(now.imports, locked.imports)
    if "*" in added:
        return "a new star import may rebind any of its names"
    rebinding = set(added) & set(locked.bound)
    if rebinding:
        return f"a new import rebinds {', '.join(sorted(rebinding))}"
    return None


def _found(relpath: str, names: list[str], context: str, around: str, node: ast.AST) -> FoundTest:
    assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    return FoundTest(
        node_id="::".join([relpath, *names]),
        file=relpath,
        criterion=criterion_of(node.name),
        fingerprint=_digest([context, around, _dump(node)]),
    )


def _class_context(cls: ast.ClassDef) -> str:
    """The class's decorators, bases and every statement that is not a plain test."""
    parts = [_dump(d) for d in cls.decorator_list]
    parts += [_dump(b) for b in cls.bases] + [_dump(k) for k in cls.keywords]
    parts += [_dump(stmt) for stmt in cls.body if not _is_plain_test(stmt)]
    return _digest(parts)


def _is_test_function(stmt: ast.stmt) -> TypeGuard[ast.FunctionDef | ast.AsyncFunctionDef]:
    return isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name.startswith("test")


def _is_plain_test(stmt: ast.stmt) -> bool:
    """A test whose definition runs nothing but `pytest.mark...` and literals: its body runs
    only when it is itself run, so it is no part of another test's context."""
    if _is_test_function(stmt):
        return _runs_nothing(stmt)
    if isinstance(stmt, ast.ClassDef) and stmt.name.startswith("Test"):
        return (
            not stmt.bases
            and not stmt.keywords
            and all(_inert(d) for d in stmt.decorator_list)
            and all(_is_plain_test(inner) for inner in stmt.body)
        )
    return False


def _runs_nothing(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    args = fn.args
    annotations = [a.annotation for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]]
    return (
        all(_inert(d) for d in fn.decorator_list)
        and all(_inert(d) for d in [*args.defaults, *args.kw_defaults] if d is not None)
        and all(a is None for a in [*annotations, fn.returns])
    )


def _inert(node: ast.AST) -> bool:
    """Literals, names, and calls of `pytest.` attributes with such arguments."""
    if isinstance(node, ast.Constant | ast.Name):
        return True
    if isinstance(node, ast.Attribute):
        return _inert(node.value)
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.operand, ast.Constant)
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return all(_inert(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is None or _inert(k) for k in node.keys) and all(
            _inert(v) for v in node.values
        )
    if isinstance(node, ast.Call):
        return (
            _rooted_at_pytest(node.func)
            and all(_inert(a) for a in node.args)
            and all(_inert(k.value) for k in node.keywords)
        )
    return False


def _rooted_at_pytest(node: ast.expr) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id == "pytest"


def _bound_names(body: list[ast.stmt]) -> set[str]:
    names: set[str] = set()
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(stmt.name)
        elif isinstance(stmt, ast.Import | ast.ImportFrom):
            names.update(_names_of(stmt))
        else:
            names.update(
                n.id
                for n in ast.walk(stmt)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
            )
    return names


def _import_names(now: list[str], locked: list[str]) -> list[str]:
    """The names bound by the imports of `now` that the locked module did not have."""
    added = [line for line in now if line not in locked]
    names: list[str] = []
    for line in added:
        names += [name for stmt in ast.parse(line).body for name in _names_of(stmt)]
    return names


def _names_of(stmt: ast.stmt) -> list[str]:
    if not isinstance(stmt, ast.Import | ast.ImportFrom):
        return []
    return [
        alias.asname or alias.name.split(".")[0] if alias.name != "*" else "*"
        for alias in stmt.names
    ]


def _dump(node: ast.AST) -> str:
    return ast.dump(node, include_attributes=False)


def _digest(parts: list[str]) -> str:
    return hashlib.sha256(json.dumps(parts).encode("utf-8")).hexdigest()[:32]
