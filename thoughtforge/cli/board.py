"""`thoughtforge board`: every project as a card in its phase's column, in the terminal, or on the
workbench's board page (`--serve`) — a board that needs no Vibe Kanban."""

from __future__ import annotations

from typing import Annotated

import typer

from thoughtforge.cli.app import app, config_of, out
from thoughtforge.cli.web import HostOption, PortOption, serve_workbench


@app.command()
def board(
    ctx: typer.Context,
    serve: Annotated[
        bool,
        typer.Option("--serve", help="Serve the workbench (its board is at /board) until Ctrl-C."),
    ] = False,
    host: HostOption = None,
    port: PortOption = None,
) -> None:
    """Show the projects as seven columns, Brain Dump to Done; a halt is a badge on its card."""
    if serve:
        serve_workbench(ctx, host, port, "/board")
        return
    from thoughtforge.actions.board_page import terminal_board

    drawn = terminal_board(config_of(ctx))
    if isinstance(drawn, str):
        out.print(drawn, soft_wrap=True)
        return
    out.print(drawn)
