"""How a check tells that Prefect still has an internal in the shape ThoughtForge uses: by
importing it and reading its signature, or, for Prefect's server modules, by reading their
source without importing them."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class Changed(Exception):
    """Prefect no longer has an internal in the shape ThoughtForge uses."""


@dataclass(frozen=True)
class Internal:
    key: str
    what: str
    """The Prefect internal, as a person would look it up."""
    used_by: str
    why: str
    without: str
    """What the person loses when it is missing (Prefect's plain behaviour then)."""
    check: Callable[[], None]
    upstream: str = ""
    """The Prefect issue it works around, when that is its only reason."""


def has_parameters(function: Any, *names: str) -> None:
    present = inspect.signature(function).parameters
    missing = [name for name in names if name not in present]
    if missing:
        raise Changed(f"{getattr(function, '__qualname__', function)} has no {', '.join(missing)}")


def attribute(module: str, name: str) -> Any:
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise Changed(f"{module}.{name}: {exc}") from None


def defined_with(module: str, qualname: str, *parameters: str) -> None:
    """`module` defines `qualname` (a function, or `Class.method`) taking `parameters`, read from
    its source: Prefect's server modules take seconds to import, and the CLI never needs them."""
    package = importlib.util.find_spec("prefect")  # not the module's: that imports its parents
    assert package is not None and package.origin is not None
    source = Path(package.origin).parent.joinpath(*module.split(".")[1:]).with_suffix(".py")
    try:
        scope: list[ast.stmt] = ast.parse(source.read_text(encoding="utf-8")).body
    except OSError:
        raise Changed(f"{module} is gone") from None
    found: ast.AST | None = None
    for name in qualname.split("."):
        found = next(
            (
                node
                for node in scope
                if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                and node.name == name
            ),
            None,
        )
        if found is None:
            raise Changed(f"{module} has no {qualname}")
        scope = found.body
    if not isinstance(found, ast.FunctionDef | ast.AsyncFunctionDef):
        raise Changed(f"{module}.{qualname} is not a function")
    arguments = found.args
    present = {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}
    missing = [name for name in parameters if name not in present]
    if missing:
        raise Changed(f"{module}.{qualname} has no {', '.join(missing)}")
