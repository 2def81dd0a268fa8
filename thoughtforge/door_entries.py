"""How a door takes a catalogue action whose entry point is made from its row
(`catalogue.PersonAction.cli`, `.mcp`): the words and the shape the command and the tool need
beyond the row's name, verb and tool. The builders are the doors' own
(`cli.answers.command_of`, `mcp_server.action_tools.tool_of`)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict


class CliCommand(BaseModel):
    """The `thoughtforge` command made from a row: `COMMAND PROJECT_ID [MESSAGE] [OPTION]`."""

    model_config = ConfigDict(frozen=True)

    help: str
    words: str | None = None
    """The MESSAGE argument's help; None when the action takes no words."""
    option: Literal["wait", "auto_confirm"] | None = None
    """`--wait` (then print the AI's reply) or `--auto-confirm` (run on through the human steps)."""


class McpTool(BaseModel):
    """The MCP tool made from a row: `TOOL(project_id[, words][, wait_seconds])`."""

    model_config = ConfigDict(frozen=True)

    description: str
    words: str | None = None
    """The words parameter's description; None when the action takes no words."""
    words_name: Literal["message", "change"] = "message"
    wait_seconds: int | None = None
    """`wait_seconds`' default (how long to wait for the AI's reply); None: no such parameter."""
    undoes: bool = False
    """Its annotations say it may remove or replace what was there (`tool_hints.tool`)."""
