"""The package's imports point down its layers and never round in a circle, so any part can be
read, tested and changed knowing only what lies below it (DESIGN.md: "Dependencies point down").

Every import counts, at the top of a module, inside a function or under `TYPE_CHECKING`: each is
a dependency of the module that writes it. Modules are read as text; nothing is imported.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import thoughtforge

PACKAGE = Path(thoughtforge.__file__).parent

LAYERS: list[set[str]] = [
    {"errors", "models", "terminal_text", "bounded_input", "config"},  # the shared vocabulary
    {"core"},  # the project on disk
    {"prompting", "adapters", "board"},  # prompts, agents, board and channels
    {"phases"},  # the phases, their shared engine, the plugin contract
    {"plugins", "connectors"},  # the deliverable types (found by path), the pulls
    {"server"},  # Prefect from the outside: start, stop, deploy, reply
    {"flows", "tasks"},  # the Prefect layer
    {"web", "mcp_server"},  # the page and the MCP server
    {"cli", "__main__"},  # the command line
]
"""Lowest first. A part may import its own layer and the layers below; within the package's
root, the modules of `thoughtforge/` itself (`__init__`) sit below everything."""


def _layer_of(module: str) -> int:
    part = module.split(".")[1] if "." in module else ""
    if part == "":
        return -1
    return next(n for n, layer in enumerate(LAYERS) if part in layer)


@cache
def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imports(module: str, path: Path, known: dict[str, Path]) -> Iterator[str]:
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                above = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*above, *([node.module] if node.module else [])])
            # `from a.b import c` depends on module a.b.c when c is one, else on a.b
            names = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                for alias in node.names
            ]
        else:
            continue
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name and name != module:
                yield name


@cache
def _graph() -> dict[str, set[str]]:
    known = _modules()
    return {module: set(_imports(module, path, known)) for module, path in known.items()}


def test_every_part_of_the_package_has_a_layer() -> None:
    parts = {m.split(".")[1] for m in _modules() if "." in m}
    assert parts == set().union(*LAYERS)


def test_no_module_imports_a_layer_above_its_own() -> None:
    upward = sorted(
        f"{module} -> {target}"
        for module, targets in _graph().items()
        for target in targets
        if _layer_of(target) > _layer_of(module)
    )
    assert upward == []


def test_no_modules_import_each_other_in_a_cycle() -> None:
    graph = _graph()
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done
    path: list[str] = []

    def walk(module: str) -> None:
        state[module] = 1
        path.append(module)
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                cycles.append([*path[path.index(target) :], target])
            elif target not in state:
                walk(target)
        path.pop()
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            walk(module)
    assert cycles == []
