"""The SDK's `MCPServer` with ThoughtForge's words for arguments an agent got wrong: the field
and what it allows (`errors.schema_problems`), where the SDK would hand back pydantic's own text
with its documentation links; a tool list without the titles pydantic gives every schema (the
field's name again, in the host's context for every tool); and `the_question`, how `ask_person`
has the host ask the person (MCP's elicitation: `input_required` from protocol 2026-07-28, a
request mid-call before).

Arguments are taken as their JSON types say, before the SDK's own validation, which would turn
`"5"` or `true` into a budget of $5 or $1: a value of another JSON type than the tool's schema
gives is refused, naming the field and the type it takes."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import Context, Elicit, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import Tool
from pydantic import ValidationError

from thoughtforge.errors import ThoughtForgeError, schema_problems
from thoughtforge.mcp_server.tool_types import PersonAnswer

if TYPE_CHECKING:
    from thoughtforge.mcp_server.tools import Tools


class ThoughtForgeServer(MCPServer):
    """The server, and the tools its tools call (made at the first call)."""

    def __init__(self, tools: Callable[[], Tools], **settings: Any) -> None:
        super().__init__("thoughtforge", **settings)
        self.tools = tools

    async def list_tools(self) -> list[Tool]:
        return [
            tool.model_copy(
                update={
                    "input_schema": untitled(tool.input_schema),
                    "output_schema": tool.output_schema and untitled(tool.output_schema),
                }
            )
            for tool in await super().list_tools()
        ]

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        tool = self._tool_manager.get_tool(name)
        wrong = _wrong_types(tool.parameters, arguments) if tool is not None else []
        if wrong:
            raise ToolError(f"{name}: bad arguments: {'; '.join(wrong)}")
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(exc, UnexpectedToolError) or not isinstance(cause, ValidationError):
                raise
            raise ToolError(f"{name}: bad arguments: {schema_problems(cause)}") from cause


_NAMING_KEYS = frozenset({"properties", "$defs", "definitions", "patternProperties"})
"""Schema keys whose own keys are names (a field may be called "title"), not keywords."""


def untitled(schema: Any, *, names: bool = False) -> Any:
    """A JSON schema without its `title` keywords."""
    if isinstance(schema, dict):
        return {
            key: untitled(value, names=key in _NAMING_KEYS)
            for key, value in schema.items()
            if names or key != "title"
        }
    if isinstance(schema, list):
        return [untitled(item) for item in schema]
    return schema


_JSON_TYPES: dict[type, str] = {
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
    type(None): "null",
}


def _wrong_types(schema: dict[str, Any], arguments: dict[str, Any]) -> list[str]:
    """Each argument whose JSON type is not one its property in `schema` allows."""
    properties = schema.get("properties", {})
    wrong = []
    for field, value in arguments.items():
        allowed = _allowed(properties.get(field, {}))
        given = _JSON_TYPES.get(type(value), "object")
        if allowed and given not in allowed and not (given == "integer" and "number" in allowed):
            wrong.append(f"{field}: takes {' or '.join(sorted(allowed))}, not a JSON {given}")
    return wrong


def _allowed(prop: dict[str, Any]) -> set[str]:
    """The JSON types a property allows (empty: any, or one the schema names by reference)."""
    if "type" in prop:
        kinds = prop["type"]
        return set(kinds) if isinstance(kinds, list) else {kinds}
    branches = prop.get("anyOf") or prop.get("oneOf")
    if not branches:
        return set()
    found = [_allowed(branch) for branch in branches]
    return set().union(*found) if all(found) else set()


def the_question(project_id: str, ctx: Context) -> Elicit[PersonAnswer]:
    """ThoughtForge's question for the host to ask the person in its own UI; refused in words
    an agent acts on when the client cannot ask (no elicitation) or nothing is asked."""
    capabilities = ctx.client_capabilities
    if capabilities is None or capabilities.elicitation is None:
        raise ToolError(
            "this client cannot ask the person (it offers no elicitation): relay the question "
            "yourself (project_status, read_draft), then call confirm, send_message or decide"
        )
    server = ctx.mcp_server
    if not isinstance(server, ThoughtForgeServer):
        raise ToolError("ask_person runs on ThoughtForge's own server only")
    try:
        return Elicit(server.tools().question(project_id), PersonAnswer)
    except ThoughtForgeError as exc:
        raise ToolError(str(exc)) from None
