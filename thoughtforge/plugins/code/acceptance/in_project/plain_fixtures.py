"""The fixtures of the plain run, made as pytest makes them, from where pytest's record says each
is defined (the test's module, a conftest, a module they import): each once per its scope (a
test, its class, its module, the session), a generator's code after `yield` run as that scope
ends; and pytest's own `tmp_path` and `monkeypatch`. A fixture it cannot make so (one that takes
`request`, one with `params`, any other of pytest's own, a method of a class) is `Unchecked`.

Runs in the project's interpreter, copied beside `plain_run`: standard library (and pytest's
`MonkeyPatch`, which only `monkeypatch` needs).
"""

from __future__ import annotations

import inspect
import shutil
import sys
import tempfile
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

RUNNER_MODULES = frozenset({"pytest", "_pytest", "pluggy", "py", "iniconfig"})


class Unchecked(Exception):
    """A test this run cannot call as pytest would."""


class Fixtures:
    """The fixtures' values, by name and scope, and what ends each scope."""

    def __init__(self, modules: dict[str, types.ModuleType]) -> None:
        self.modules = modules
        """Module name in pytest's run → the module as the plain run loaded it (renamed)."""
        self.values: dict[tuple[str, str], Any] = {}
        self.ends: dict[str, list[Callable[[], object]]] = {}

    def value(self, name: str, item: dict[str, Any], scopes: dict[str, str]) -> Any:
        """The fixture `name` for the test `item`; `scopes` names the test's scope keys."""
        return self._value(name, item, scopes, ())

    def end(self, scope: str) -> None:
        """The scope's fixtures finished, last made first."""
        for finish in reversed(self.ends.pop(scope, [])):
            finish()
        self.values = {key: v for key, v in self.values.items() if key[1] != scope}

    def end_all(self) -> None:
        for scope in list(self.ends):
            self.end(scope)

    def _value(
        self, name: str, item: dict[str, Any], scopes: dict[str, str], asking: tuple[str, ...]
    ) -> Any:
        if name in asking:
            raise Unchecked(f"the fixture {name} asks for itself")
        key = scopes["function"]
        if name in ("tmp_path", "monkeypatch"):
            if (name, key) not in self.values:
                self.values[(name, key)] = self._built_in(name, key)
            return self.values[(name, key)]
        defined = (item.get("defined") or {}).get(name)
        if not defined or defined["params"] or "request" in defined["argnames"]:
            raise Unchecked(f"it needs the fixture {name}")
        key = scopes.get(defined["scope"], scopes["session"])
        if (name, key) in self.values:
            return self.values[(name, key)]
        function = self._function(defined, name)
        given = {a: self._value(a, item, scopes, (*asking, name)) for a in defined["argnames"]}
        made = function(**given)
        if inspect.isgenerator(made):
            value = next(made)
            self.ends.setdefault(key, []).append(lambda: next(made, None))
        else:
            value = made
        self.values[(name, key)] = value
        return value

    def _built_in(self, name: str, key: str) -> Any:
        if name == "tmp_path":
            folder = Path(tempfile.mkdtemp(prefix="check-"))
            self.ends.setdefault(key, []).append(lambda: shutil.rmtree(folder, True))
            return folder
        from _pytest.monkeypatch import MonkeyPatch

        patch = MonkeyPatch()
        self.ends.setdefault(key, []).append(patch.undo)
        return patch

    def _function(self, defined: dict[str, Any], name: str) -> Callable[..., Any]:
        module_name, qualname = defined["module"] or "", defined["qualname"] or ""
        if module_name.split(".")[0] in RUNNER_MODULES or "." in qualname:
            raise Unchecked(f"it needs the fixture {name}")
        module = self.modules.get(module_name) or sys.modules.get(module_name)
        found: object = getattr(module, qualname, None)
        wrapped = getattr(found, "_get_wrapped_function", None)  # pytest 8.4 on
        if callable(wrapped):
            found = wrapped()
        found = getattr(getattr(found, "__pytest_wrapped__", None), "obj", found)  # before it
        if not callable(found) or inspect.iscoroutinefunction(found):
            raise Unchecked(f"it needs the fixture {name}")
        return found
