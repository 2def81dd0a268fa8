"""The `thoughtforge` command line: a Typer `app` with one module per command group —
`projects` (create, run, inspect), `replies` (the human's verbs) and `server`.

It asks `phases` and `core` to act and runs `flows`; it never changes a phase itself. Commands
import what they need when they run, so `thoughtforge --help` loads neither Prefect nor a phase.
"""

from thoughtforge.cli import projects, replies, server
from thoughtforge.cli.app import app, main

__all__ = ["app", "main", "projects", "replies", "server"]
