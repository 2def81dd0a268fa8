"""The package's imports point down its layers and never round in a circle, so any part can be
read, tested and changed knowing only what lies below it. The layers are docs/ARCHITECTURE.md's
list, read from it, so the document and this test cannot disagree.

Every import counts, at the top of a module, inside a function or under `TYPE_CHECKING`: each is
a dependency of the module that writes it. Modules are read as text; nothing is imported.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import thoughtforge

PACKAGE = Path(thoughtforge.__file__).parent

ARCHITECTURE = Path(__file__).parents[1] / "docs" / "ARCHITECTURE.md"


def _layers_in(document: str) -> list[set[str]]:
    """The numbered list between the document's `layers` markers: one layer a line, its parts
    in backticks before the dash."""
    listing = document.split("<!-- layers:", 1)[1].split("<!-- /layers -->", 1)[0]
    return [
        set(re.findall(r"`([\w]+)`", line.split(" — ", 1)[0]))
        for line in listing.splitlines()
        if re.match(r"^\d+\. ", line)
    ]


LAYERS: list[set[str]] = _layers_in(ARCHITECTURE.read_text(encoding="utf-8"))
"""Lowest first, as docs/ARCHITECTURE.md lists them. A part may import its own layer and the
layers below; within the package's root, the modules of `thoughtforge/` itself (`__init__`) sit
below everything."""


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


DOORS = frozenset({"web", "mcp_server", "cli"})
"""The ways in a person (or their agent) comes by: the page, the MCP server, the command line."""
DOORS_READ_THROUGH = frozenset({"actions", "serving", *LAYERS[0]})
"""What a door may import besides the doors: `actions` (what a person does, and where a project
stands, as typed read models), `serving` (a door over local HTTP) and the shared vocabulary
(`config`, the error tree, the phases and halt reasons, inert terminal text)."""


COMMAND_LINE_OWN_WORK = {
    "cli.runs -> flows": "a run in the command's own process (`continue`, `polish`, `revise`)",
    "cli.runs -> stack.temporary_server": "the server such a run starts when none is up",
    "cli.stack -> stack": "`up`, `down`, `worker`, `recover`, `server`: the machine's stack",
    "cli.stack -> flows": "what `up` deploys: the flows' shapes, the warm starter's command",
    "cli.deployment_run -> stack": "`run-deployment`: `prefect deployment run` for a tool install",
    "cli.projects -> stack.deployments": "`init --prefect-yaml`: the deployments `up` deploys",
    "cli.doctor -> flows.runtime.prefect_internals": "`doctor`: the Prefect internals runs borrow",
}
"""The command line's imports around `actions` that are its own work, not a door's: it alone runs
the pipeline in its own process (`flows`) and starts, stops and deploys the machine's Prefect
stack (`stack`); no page or MCP tool does either. Each entry, `module -> part`, allows that
module's imports of the part and everything under it, and says what needs them."""


def _allows(own: str, edge: str) -> bool:
    """Whether the entry `own` (`cli.stack -> stack`) allows `edge` (`cli.stack -> stack.api`)."""
    own_module, part = own.split(" -> ")
    module, target = edge.split(" -> ")
    return module == own_module and (target == part or target.startswith(f"{part}."))


def _door_edges() -> set[str]:
    """Every import of a door's module into the package outside what doors may read through
    (`web.live -> core.state`, the package's name left off), but the command line's own work."""
    every = {
        f"{module.removeprefix('thoughtforge.')} -> {target.removeprefix('thoughtforge.')}"
        for module, targets in _graph().items()
        if "." in module and module.split(".")[1] in DOORS
        for target in targets
        if "." in target and target.split(".")[1] not in DOORS | DOORS_READ_THROUGH
    }
    return {edge for edge in every if not any(_allows(own, edge) for own in COMMAND_LINE_OWN_WORK)}


def test_the_command_line_s_own_work_names_only_imports_it_makes() -> None:
    """An allowance outliving the import it was for would let a door's new import through."""
    every = {
        f"{module.removeprefix('thoughtforge.')} -> {target.removeprefix('thoughtforge.')}"
        for module, targets in _graph().items()
        if module.startswith("thoughtforge.cli.")
        for target in targets
    }
    unused = [own for own in COMMAND_LINE_OWN_WORK if not any(_allows(own, e) for e in every)]
    assert unused == []


def test_the_doors_read_through_actions_serving_and_the_shared_vocabulary_only() -> None:
    """Issue 57 began with 124 such imports (the page's 49, MCP's 16, the command line's 59)."""
    assert sorted(_door_edges()) == [], "a door reaches around actions/"
