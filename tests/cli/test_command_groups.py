"""The command line imports a command's group when it runs: `groups_for` finds the group from the
arguments, and `GROUP_OF_COMMAND` must name, for every command, the module that registers it
(else the command would run with its group missing, or every group be imported for it)."""

from __future__ import annotations

import subprocess
import sys

import pytest
import typer.main

from thoughtforge.cli import GROUP_OF_COMMAND, GROUPS, HELP_PANELS, app, groups_for


def test_the_table_names_each_commands_own_module() -> None:
    registered = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    modules = {name: command.callback.__module__ for name, command in registered.items()}
    assert {name: f"thoughtforge.cli.{group}" for name, group in GROUP_OF_COMMAND.items()} == (
        modules
    )


@pytest.mark.parametrize(
    ("arguments", "groups"),
    [
        (["mcp"], ["mcp"]),
        (["--config", "config.yaml", "mcp", "--http"], ["mcp"]),
        (["-c", "mcp", "status"], ["projects"]),  # a config file named like a command
        (["--config=x.yaml", "--debug", "up"], ["stack"]),
        (["--debug", "say", "p1", "hello"], ["answers"]),
        ([], GROUPS),
        (["--help"], GROUPS),
        (["--version"], GROUPS),
        (["mcpp"], GROUPS),  # a typo: Typer suggests from every command
        (["--config"], GROUPS),
        (["-cconfig.yaml", "mcp"], GROUPS),  # a form it does not read: the whole app
    ],
)
def test_the_group_is_read_from_the_arguments(arguments: list[str], groups: list[str]) -> None:
    assert groups_for(arguments) == groups


def _thoughtforge(*arguments: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "thoughtforge", *arguments]
    env = {"PATH": "/usr/bin:/bin", "COLUMNS": "200"}  # wide: one command a line
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)


def test_the_console_script_runs_a_command_of_its_group_and_lists_them_all() -> None:
    listed = _thoughtforge("--help").stdout
    assert all(f" {name} " in listed for name in GROUP_OF_COMMAND)
    assert "--print-config" in _thoughtforge("mcp", "--help").stdout
    typo = _thoughtforge("mcpp")
    assert typo.returncode == 2 and "Did you mean 'mcp'?" in typo.stderr


def test_help_lists_each_command_once_in_its_panel_the_first_steps_first() -> None:
    paneled = [name for names in HELP_PANELS.values() for name in names]
    assert sorted(paneled) == sorted(GROUP_OF_COMMAND)
    listed = _thoughtforge("--help").stdout
    assert listed.index("Start here") < listed.index("Answer a project")
    words = [line.split()[1] for line in listed.splitlines() if line.startswith("│ ")]
    commands = [word for word in words if word in GROUP_OF_COMMAND]
    assert commands[:3] == ["init", "up", "run"]
