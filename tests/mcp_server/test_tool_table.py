"""The MCP server registers its tools from one table (`tool_table.TOOLS`): every tool function
is defined once (or made from its catalogue row) and is a tool under its own name, docstring
and `@tool` annotations, and the agent sees its parameters without the `Tools` object the
server binds to it."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path

from thoughtforge.catalogue import ACTIONS
from thoughtforge.config import Config
from thoughtforge.mcp_server import documents, project_tools, tool_hints, turns
from thoughtforge.mcp_server.tool_table import TOOLS
from thoughtforge.mcp_server.transports import build_server


def test_every_function_of_the_table_is_a_tool_with_its_own_parameters(
    config: Config, tmp_path: Path
) -> None:
    server = build_server(tmp_path / "config.yaml", config)
    listed = {tool.name: tool for tool in asyncio.run(server.list_tools())}
    assert list(listed) == [tool.__name__ for tool in TOOLS]
    defined = [
        name
        for module in (project_tools, turns, documents)
        for name, value in vars(module).items()
        if inspect.isfunction(value)
        and value.__module__ == module.__name__
        and not name.startswith("_")
    ]
    made = [action.mcp_tool for action in ACTIONS.values() if action.mcp]
    assert sorted(defined + made) == sorted(listed), "a tool written but left out of the table"
    assert {"create_project", "list_projects", "send_message", "decide", "rollback"} <= set(listed)
    for function in TOOLS:
        shown = listed[function.__name__]
        wanted = [
            name
            for name, parameter in list(inspect.signature(function).parameters.items())[1:]
            if "Resolve(" not in str(parameter.annotation)  # the person's, asked by the host
        ]
        assert list(shown.input_schema["properties"]) == wanted, function.__name__
        assert shown.description and shown.description.startswith(
            inspect.getdoc(function).split()[0]  # type: ignore[union-attr]
        )
    limit = listed["send_message"].input_schema["properties"]["message"]
    assert limit["maxLength"] > 0  # the limits of the signature reach the agent


def test_each_tool_says_whether_it_reads_or_may_undo_and_carries_no_titles(
    config: Config, tmp_path: Path
) -> None:
    server = build_server(tmp_path / "config.yaml", config)
    listed = {tool.name: tool for tool in asyncio.run(server.list_tools())}
    hints = {name: tool.annotations for name, tool in listed.items()}
    assert set(tool_hints.HINTS) == set(listed), "a tool without its @tool, or one not listed"
    assert all(hint is not None for hint in hints.values())
    read = hints["read_document"]
    assert read is not None and read.read_only_hint and read.idempotent_hint
    rollback = hints["rollback"]
    assert rollback is not None and rollback.read_only_hint is False
    assert rollback.destructive_hint is True
    message = hints["send_message"]
    assert message is not None and message.destructive_hint is False
    assert message.open_world_hint is True  # it sets an AI agent to work
    assert (hints["archive_project"] or message).idempotent_hint is True
    shown = str([(tool.input_schema, tool.output_schema) for tool in listed.values()])
    assert "'title'" not in shown  # pydantic's titles repeat each field's name
