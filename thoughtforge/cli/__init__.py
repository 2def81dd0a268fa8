"""The `thoughtforge` command line: a Typer `app` with one module per command group — `projects`
(create, run, inspect), `answers` (the person's verbs), `stack` (up, down, worker, recover),
`budget` (spend and its limit), `deployment_run` (a run of a deployment `up` made), `after_done`
(revise, history, rollback) and `board` (the projects as a Kanban board, in the terminal or on a
local web page).

It asks `phases` and `core` to act and runs `flows`; it never changes a phase itself. Commands
import what they need when they run, so `thoughtforge --help` loads neither Prefect nor a phase.

A command group is imported when it is needed: `main` imports only the group of the command it
is given (`thoughtforge mcp`, which an agent tool starts often and waits for, loads no other
command and has Typer build no other), and every group when the command is not one it knows
(`--help`, a typo). Whoever reads the app's commands first otherwise (a test, `CliRunner`) gets
every group.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterable, Iterator
from typing import Any, SupportsIndex

from typer.models import CommandInfo

from thoughtforge.catalogue import ACTIONS
from thoughtforge.cli.app import app, reflow_help
from thoughtforge.cli.app import main as run_app

MADE_COMMANDS = tuple(action.cli_verb for action in ACTIONS.values() if action.cli)
"""The commands `answers` makes from the catalogue's rows (a new one is in the answer panel)."""

GROUP_OF_COMMAND = {
    **dict.fromkeys(("revise", "history", "rollback"), "after_done"),
    **dict.fromkeys(("confirm", "edit", "agent", "answer", *MADE_COMMANDS), "answers"),
    "board": "board",
    "budget": "budget",
    "chat": "chat",
    "run-deployment": "deployment_run",
    "mcp": "mcp",
    **dict.fromkeys(
        (
            "init",
            "new",
            "run",
            "continue",
            "polish",
            "status",
            "doctor",
            "pull",
            "archive",
            "unarchive",
        ),
        "projects",
    ),
    **dict.fromkeys(("up", "down", "worker", "recover", "server"), "stack"),
    "web": "web",
}
"""Each command and the module of `thoughtforge.cli` that registers it (a test holds the table to
the commands the modules register)."""
GROUPS = sorted(set(GROUP_OF_COMMAND.values()))
_ANSWERING = (
    *("say", "distill", "realign", "confirm", "edit", "answer"),
    *("resume", "override", "terminate", "agent", "chat"),
)
HELP_PANELS = {
    "Start here": ("init", "up", "run", "new", "status", "web", "down", "doctor"),
    "Answer a project": (*_ANSWERING, *(c for c in MADE_COMMANDS if c not in _ANSWERING)),
    "After done": ("revise", "history", "rollback", "budget", "archive", "unarchive"),
    "Runs, the stack and other doors": (
        *("run-deployment", "continue", "polish", "pull", "board", "mcp"),
        *("worker", "recover", "server"),
    ),
}
"""`--help`'s panels, in order: what a newcomer types first comes first (a test holds the panels
to the commands)."""
ROOT_OPTIONS_WITH_VALUE = ("--config", "-c")
ROOT_FLAGS = ("--debug",)


class CommandsOnFirstRead(list[CommandInfo]):
    """`app.registered_commands`: reading it before any group is imported imports them all, so
    the app is whole for whoever reads it; registering (Typer's `append`) reads nothing."""

    def __init__(self, registered: Iterable[CommandInfo]) -> None:
        super().__init__(registered)
        self.imported = False

    def _whole(self) -> None:
        if not self.imported:
            import_groups(GROUPS)

    def __iter__(self) -> Iterator[CommandInfo]:
        self._whole()
        return super().__iter__()

    def __len__(self) -> int:
        self._whole()
        return super().__len__()

    def __getitem__(self, index: SupportsIndex | slice) -> Any:
        self._whole()
        return super().__getitem__(index)


_commands = CommandsOnFirstRead(app.registered_commands)
app.registered_commands = _commands


def import_groups(groups: Iterable[str]) -> None:
    """Import these command groups (their commands register on `app`), then reflow the help and
    put each command in its panel, the panels in `HELP_PANELS`' order."""
    _commands.imported = True
    for group in groups:
        importlib.import_module(f"{__name__}.{group}")
    reflow_help()
    panel_of = {name: panel for panel, names in HELP_PANELS.items() for name in names}
    order = [name for names in HELP_PANELS.values() for name in names]
    for command in list.__iter__(_commands):
        command.rich_help_panel = panel_of.get(command_name(command))
    list.sort(_commands, key=lambda command: _place(order, command_name(command)))


def command_name(command: CommandInfo) -> str:
    """The name a command is typed by (Typer's: its function's, dashed, unless it names one)."""
    callback_name = getattr(command.callback, "__name__", "")
    return command.name or callback_name.replace("_", "-")


def _place(order: list[str], name: str) -> int:
    return order.index(name) if name in order else len(order)


def groups_for(arguments: list[str]) -> list[str]:
    """The one group the command in `arguments` needs (after the root options), or every group
    when there is no command or one this table does not know: Typer then lists or refuses it
    with the whole app in view."""
    rest = iter(arguments)
    for argument in rest:
        if argument in ROOT_OPTIONS_WITH_VALUE:
            next(rest, None)
        elif argument in ROOT_FLAGS or argument.startswith("--config="):
            continue
        elif argument in GROUP_OF_COMMAND:
            return [GROUP_OF_COMMAND[argument]]
        else:
            break
    return GROUPS


def main() -> None:
    """The console script (and `python -m thoughtforge`): the command's own group, then the
    command."""
    import_groups(groups_for(sys.argv[1:]))
    run_app()


__all__ = [
    "GROUPS",
    "GROUP_OF_COMMAND",
    "HELP_PANELS",
    "app",
    "command_name",
    "groups_for",
    "import_groups",
    "main",
]
