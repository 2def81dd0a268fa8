"""`thoughtforge web`: the workbench, the page a person works with ThoughtForge in (`up` starts it
in the background; this runs it in the foreground)."""

from __future__ import annotations

from typing import Annotated

import typer

from thoughtforge.cli.app import app, config_of
from thoughtforge.config import config_path

HostOption = Annotated[
    str | None, typer.Option(help="The address to listen on (default: web.host, 127.0.0.1).")
]
PortOption = Annotated[int | None, typer.Option(help="The port (default: web.port, 8765).")]


@app.command()
def web(ctx: typer.Context, host: HostOption = None, port: PortOption = None) -> None:
    """Serve the workbench until Ctrl-C: the inbox, each project's thread with its composer, file
    drop, the board, and the prompt editor."""
    serve_workbench(ctx, host, port)


def serve_workbench(
    ctx: typer.Context, host: str | None, port: int | None, page: str = "/"
) -> None:
    from thoughtforge.web.serve import serve

    config = config_of(ctx)
    config.web.host = host or config.web.host
    config.web.port = config.web.port if port is None else port
    serve(config_path(ctx.obj).resolve(), config, page)
