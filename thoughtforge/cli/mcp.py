"""`thoughtforge mcp`: this install's projects as an MCP server, for agent tools (Claude Code,
Cursor, Codex, Gemini CLI, Zed): over stdio, or streamable HTTP with `--http`."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from thoughtforge.cli.app import app, config_of, err
from thoughtforge.config import config_path


@app.command()
def mcp(
    ctx: typer.Context,
    http: Annotated[
        bool,
        typer.Option(
            "--http", help="Serve streamable HTTP (with a bearer token) instead of stdio."
        ),
    ] = False,
    host: Annotated[str, typer.Option(help="With --http: the address to listen on.")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option(help="With --http: the port (0 takes a free one).")] = 8766,
    print_config: Annotated[
        bool,
        typer.Option(
            "--print-config",
            help="Print the entries to paste into Claude Code, Cursor or any mcpServers JSON.",
        ),
    ] = False,
) -> None:
    """Serve this install's projects to an agent tool over MCP: create a project, answer its
    questions, decide its halts, read what it made. Stdio by default (what agent tools launch);
    `--print-config` prints the entries to paste."""
    from thoughtforge.mcp_server.client_config import client_configs

    config_file = config_path(ctx.obj).resolve()
    if print_config:
        if http:
            from thoughtforge.mcp_server.transports import HTTP_PATH, http_token

            url = f"http://{host}:{port}{HTTP_PATH}"
            typer.echo(client_configs(config_file, url, http_token(config_file)))
        else:
            typer.echo(client_configs(config_file))
        return
    config = config_of(ctx, announced=False)  # from the first tool call (`transports`)
    if http:
        from thoughtforge.mcp_server.transports import run_http

        run_http(config_file, config, host, port)
    else:
        from thoughtforge.mcp_server.transports import run_stdio

        if sys.stdin.isatty():
            err.print(
                "thoughtforge mcp speaks MCP on stdin and stdout: an agent tool starts it. "
                "`thoughtforge mcp --print-config` prints the entries to paste; Ctrl-C stops."
            )
        run_stdio(config_file, config)
