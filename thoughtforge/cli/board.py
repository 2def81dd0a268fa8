"""`thoughtforge board`: every project as a card in its phase's column, in the terminal or as a
self-refreshing page on localhost — a board that needs no Vibe Kanban."""

from __future__ import annotations

from typing import Annotated

import typer

from thoughtforge.cli.app import app, config_of, out
from thoughtforge.config import Config


@app.command()
def board(
    ctx: typer.Context,
    serve: Annotated[
        bool, typer.Option("--serve", help="Serve the board as a web page until Ctrl-C.")
    ] = False,
    host: Annotated[str, typer.Option(help="With --serve: the address to listen on.")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option(help="With --serve: the port to listen on.")] = 8765,
    refresh: Annotated[
        int, typer.Option(min=1, help="With --serve: seconds between the page's refreshes.")
    ] = 5,
) -> None:
    """Show the projects as seven columns, Brain Dump to Done; a halt is a badge on its card."""
    config = config_of(ctx)
    if serve:
        _serve(config, host, port, refresh)
        return
    from thoughtforge.board.cards import board_cards
    from thoughtforge.board.text import START_HINT, render_board

    cards = board_cards(config)
    if not cards:
        out.print(f"No projects in {config.projects.directory} yet. {START_HINT}", soft_wrap=True)
        return
    out.print(render_board(cards))


def _serve(config: Config, host: str, port: int, refresh: int) -> None:
    """Serve in this process until Ctrl-C; a port in use is an error before anything starts."""
    from thoughtforge.board.cards import board_cards
    from thoughtforge.board.web import BoardServer

    server = BoardServer(host, port, lambda: board_cards(config), refresh)
    out.print(
        f"Board at {server.url} (refreshes every {refresh} s, read-only). Ctrl-C stops it.",
        soft_wrap=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        out.print("Board stopped.")
    finally:
        server.server_close()
