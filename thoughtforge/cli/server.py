"""Commands about the machine, not one project: recover interrupted runs, start the server."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import typer

from thoughtforge.cli.app import app, config_of, out


@app.command()
def recover(ctx: typer.Context) -> None:
    """Halt projects left in an autonomous phase (distilling, building, polishing) by a dead run."""
    from thoughtforge.core import halt_orphaned_projects

    halted = halt_orphaned_projects(config_of(ctx))
    for project_id in halted:
        out.print(f"{project_id}: halted (server_restart). Resume it with `thoughtforge resume`.")
    if not halted:
        out.print("No interrupted projects.")


@app.command()
def server(ctx: typer.Context) -> None:
    """Recover interrupted projects, then start the Prefect server (UI and API) from config."""
    recover(ctx)
    config = config_of(ctx)
    prefect = str(Path(sys.executable).with_name("prefect"))
    args = ["server", "start", "--host", config.server.host, "--port", str(config.server.port)]
    os.execv(prefect, [prefect, *args])
