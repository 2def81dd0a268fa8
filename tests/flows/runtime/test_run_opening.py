"""Every flow starts through `flows.runtime.run_opening`: the prologue (config, plugins, inert
output, events) and the holds around the work (lock, slot, holding, graceful stop, tagging) are
written there once, and nowhere else in `flows/`."""

from __future__ import annotations

import ast
from pathlib import Path

import thoughtforge.flows

FLOWS = Path(thoughtforge.flows.__file__).parent
PROLOGUE_PARTS = {
    "load_plugins",
    "make_run_output_inert",
    "announce",
    "refuse_beside_another",
    "tag_this_run",
    "hold_run_lock",
    "run_slot",
    "holding_for",
    "stopping_gracefully",
    "track_temporary_server",
}


def _calls(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            names.add(func.id if isinstance(func, ast.Name) else getattr(func, "attr", ""))
    return names


def _flows(tree: ast.Module) -> list[ast.FunctionDef]:
    return [
        node
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and any(
            isinstance(d, ast.Call) and getattr(d.func, "id", "") == "flow"
            for d in node.decorator_list
        )
    ]


def test_no_flow_module_but_run_opening_holds_or_prepares_a_run_itself() -> None:
    copied = {
        f"{path.name}: {name}"
        for path in FLOWS.glob("*.py")
        if path.name != "run_opening.py"
        for name in _calls(ast.parse(path.read_text(encoding="utf-8"))) & PROLOGUE_PARTS
    }
    assert copied == set()


def test_every_flow_opens_with_run_opening() -> None:
    flows = {
        path.name: _flows(ast.parse(path.read_text(encoding="utf-8")))
        for path in FLOWS.glob("*.py")
    }
    found = {f"{name}:{f.name}" for name, defined in flows.items() for f in defined}
    assert found >= {
        "pipeline.py:pipeline_flow",
        "polish.py:polish_flow",
        "repolish.py:repolish_flow",
    }
    assert [
        f"{name}:{f.name}"
        for name, defined in flows.items()
        for f in defined
        if "opening" not in _calls(f)
    ] == []
