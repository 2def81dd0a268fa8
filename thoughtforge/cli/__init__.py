"""The `thoughtforge` command line: a Typer `app` with one module per command group — `projects`
(create, run, inspect), `answers` (the person's verbs), `stack` (up, down, worker, recover),
`budget` (spend and its limit), `deployment_run` (a run of a deployment `up` made), `after_done`
(revise, history, rollback) and `board` (the projects as a Kanban board, in the terminal or on a
local web page).

It asks `phases` and `core` to act and runs `flows`; it never changes a phase itself. Commands
import what they need when they run, so `thoughtforge --help` loads neither Prefect nor a phase.
"""

from thoughtforge.cli import (
    after_done,
    answers,
    board,
    budget,
    chat,
    deployment_run,
    mcp,
    projects,
    stack,
    web,
)
from thoughtforge.cli.app import app, main, reflow_help

reflow_help()

__all__ = [
    "after_done",
    "answers",
    "app",
    "board",
    "budget",
    "chat",
    "deployment_run",
    "main",
    "mcp",
    "projects",
    "stack",
    "web",
]
