"""The error tree drawn in `errors.py`'s docstring names every `ThoughtForgeError` subclass, so
it stays the one place that reads as the whole hierarchy. The classes are found in the source
(by their bases' names), so the test imports nothing it checks."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import thoughtforge
from thoughtforge import errors

PACKAGE = Path(thoughtforge.__file__).parent


def _bases_by_class() -> dict[str, set[str]]:
    bases: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases.setdefault(node.name, set()).update(
                    b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases
                )
    return bases


def _subclasses_of(root: str, bases: dict[str, set[str]]) -> set[str]:
    found = {root}
    while grown := {name for name, of in bases.items() if of & found} - found:
        found |= grown
    return found - {root}


def test_the_error_trees_docstring_names_every_thoughtforge_error() -> None:
    errors_found = _subclasses_of("ThoughtForgeError", _bases_by_class())
    named = set(re.findall(r"\w+", errors.__doc__ or ""))
    assert {"AgentFailure", "ConnectorError", "AnsweredMeanwhile"} <= errors_found
    assert sorted(errors_found - named) == []
