"""Every CLI ThoughtForge drives is one module behind `CliKind`, and the config's list of names is
the registry's: a CLI added to one and not the other fails here."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import get_args

import pytest

from thoughtforge.adapters.agents import kinds
from thoughtforge.adapters.agents.kinds import CLI_KINDS, CliKind
from thoughtforge.adapters.agents.launch import launch_of
from thoughtforge.config.agents import CliProfileName

AGENTS = Path(kinds.__file__).parents[1]


def test_the_config_names_exactly_the_registered_clis() -> None:
    assert set(get_args(CliProfileName)) == set(CLI_KINDS)


@pytest.mark.parametrize("name", sorted(CLI_KINDS))
def test_each_cli_is_one_module_of_its_own_name(name: str) -> None:
    kind = CLI_KINDS[name]
    assert isinstance(kind, CliKind)
    assert type(kind).__module__ == f"thoughtforge.adapters.agents.kinds.{name}"
    assert kind.output in kind.readers
    for package in kind.packages:  # the safety check finds the CLI behind its npm package
        assert launch_of("npx", [package, "--yolo"]).cli == name


def test_no_module_outside_the_kinds_names_a_cli() -> None:
    """Per-CLI knowledge (a flag, an output form, a package) is its kind's: the shared agent
    modules name no CLI in their code (docstrings and comments may)."""
    named = []
    for path in AGENTS.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
            and node.body
            and isinstance(node.body[0], ast.Expr)
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docstrings
                and any(cli in node.value.lower() for cli in CLI_KINDS)
            ):
                named.append(f"{path.name}:{node.lineno}: {node.value[:60]!r}")
    assert named == []
