"""The entries a person pastes into their agent tool to reach this install's MCP server: Claude
Code's `claude mcp add` line, Cursor's `.cursor/mcp.json`, and the generic `mcpServers` JSON most
other tools (Claude Desktop, Windsurf, Zed's context servers, Gemini CLI) read.

Each names this install's own executable and config file by absolute path, since an agent tool
starts the server from a folder of its own choosing.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

SERVER_NAME = "thoughtforge"


def launch_command(config_file: Path) -> list[str]:
    """How an agent tool starts the stdio server of this install."""
    script = Path(sys.executable).parent / "thoughtforge"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "thoughtforge"]
    return [*command, "--config", str(config_file.resolve()), "mcp"]


def client_configs(config_file: Path, http_url: str | None = None, token: str = "") -> str:
    """The three entries, as text to print: for stdio, or for the HTTP server at `http_url`."""
    entry: dict[str, Any]
    if http_url is None:
        command = launch_command(config_file)
        claude = f"claude mcp add {SERVER_NAME} -- {shlex.join(command)}"
        entry = {"command": command[0], "args": command[1:]}
    else:
        header = f"Authorization: Bearer {token}"
        claude = (
            f"claude mcp add --transport http {SERVER_NAME} {shlex.quote(http_url)} "
            f"--header {shlex.quote(header)}"
        )
        entry = {"url": http_url, "headers": {"Authorization": f"Bearer {token}"}}
    servers = json.dumps({"mcpServers": {SERVER_NAME: entry}}, indent=2)
    cursor = {"mcpServers": {SERVER_NAME: {"type": "http", **entry}}} if http_url else None
    cursor_text = json.dumps(cursor, indent=2) if cursor else servers
    return (
        f"# Claude Code\n{claude}\n\n"
        f"# Cursor: .cursor/mcp.json in a project, or ~/.cursor/mcp.json for all\n{cursor_text}\n\n"
        f"# Any other tool that reads mcpServers JSON (Claude Desktop, Windsurf, Gemini CLI, …)\n"
        f"{servers}\n"
    )
