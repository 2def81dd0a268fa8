"""The SDK's `MCPServer` with ThoughtForge's words for arguments an agent got wrong: the field
and what it allows (`errors.schema_problems`), where the SDK would hand back pydantic's own text
with its documentation links. Imported only when a server is built (it loads the SDK)."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from pydantic import ValidationError

from thoughtforge.errors import schema_problems


class ThoughtForgeServer(MCPServer):
    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(exc, UnexpectedToolError) or not isinstance(cause, ValidationError):
                raise
            raise ToolError(f"{name}: bad arguments: {schema_problems(cause)}") from cause
