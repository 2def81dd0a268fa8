"""The MCP tools made from the catalogue's rows (`catalogue.PersonAction.mcp`): for an action
that takes a project, maybe its words, and answers with the AI's reply, the row says what the
agent sees (the description, the words' parameter, how long to wait by default, whether it may
undo something) and the tool is `Tools.answer` with the row's action, as `turns`' hand-written
tools are. So a new action of that shape is a tool once its row is written."""

from __future__ import annotations

from collections.abc import Callable
from inspect import Parameter, Signature
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from thoughtforge.bounded_input import MAX_MESSAGE_CHARS
from thoughtforge.catalogue import PersonAction
from thoughtforge.door_entries import McpTool
from thoughtforge.mcp_server.tool_hints import tool
from thoughtforge.mcp_server.tool_types import ProjectId, Turn, WaitSeconds

if TYPE_CHECKING:
    from thoughtforge.mcp_server.tools import Tools  # loaded at the first tool call

_SHOWN = Parameter.POSITIONAL_OR_KEYWORD


def tool_of(action: PersonAction, made: McpTool) -> Callable[..., Turn]:
    """The tool made from `action`'s row: `TOOL(project_id[, words][, wait_seconds])`, its
    signature (what the agent sees) said by the row, its call `Tools.answer`."""

    def answering(tools: Tools, project_id: str, **given: Any) -> Turn:
        words: str = given.get(made.words_name, "")
        return tools.answer(project_id, action.name, words, given.get("wait_seconds", 0))

    shown = [Parameter("tools", _SHOWN), Parameter("project_id", _SHOWN, annotation=ProjectId)]
    if made.words is not None:
        text = Annotated[str, Field(max_length=MAX_MESSAGE_CHARS, description=made.words)]
        shown.append(Parameter(made.words_name, _SHOWN, annotation=text))
    if made.wait_seconds is not None:
        shown.append(
            Parameter("wait_seconds", _SHOWN, annotation=WaitSeconds, default=made.wait_seconds)
        )
    answering.__signature__ = Signature(shown, return_annotation=Turn)  # type: ignore[attr-defined]
    answering.__name__ = answering.__qualname__ = action.mcp_tool
    answering.__doc__ = made.description
    return tool(undoes=made.undoes)(answering)
