"""The MCP tools, in the order the agent sees them: each defined once, in its module
(`project_tools` a project as a whole, `turns` answering it as the person would where the tool
is its own, `documents` what it made) or made from its catalogue row (`action_tools`), its name,
description (the docstring) and parameters (the signature, with their limits) what the agent
sees, its `@tool` the annotations a host decides from (`tool_hints.HINTS`), its body what it
does. `transports.build_server` registers every function in `TOOLS`, so adding a tool is
writing its function and naming it here, or, for an action answered as a turn, its row.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from thoughtforge.catalogue import ACTIONS
from thoughtforge.mcp_server import documents, project_tools, turns
from thoughtforge.mcp_server.action_tools import tool_of

HAND_WRITTEN_TURNS = {tool.__name__: tool for tool in (turns.confirm, turns.decide)}
"""The tools of handed-over actions that are their own: `confirm` takes two rows (with
`accept_unresolved`), `decide` three (resume, override, terminate) with a budget and a
confirmation for terminate."""


def _turns() -> list[Callable[..., Any]]:
    """The tools of the actions a door hands over (rows with a `handler`), in the catalogue's
    order: made from the row, or the hand-written tool it names."""
    made: dict[str, Callable[..., Any]] = {}
    for action in ACTIONS.values():
        if action.handler is None or action.mcp_tool in made:
            continue
        made[action.mcp_tool] = (
            tool_of(action, action.mcp) if action.mcp else HAND_WRITTEN_TURNS[action.mcp_tool]
        )
    return list(made.values())


TOOLS: tuple[Callable[..., Any], ...] = (
    project_tools.create_project,
    project_tools.list_projects,
    project_tools.archive_project,
    project_tools.unarchive_project,
    project_tools.project_status,
    project_tools.read_thread,
    *_turns(),
    project_tools.history,
    project_tools.rollback,
    documents.read_document,
    documents.read_polish_record,
    project_tools.spend,
    turns.read_draft,
    turns.edit_draft,
    turns.ask_person,
)
