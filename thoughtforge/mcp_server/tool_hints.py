"""What MCP's tool annotations say of each tool (`tool_table.TOOLS`): which only read, which may
remove or replace what was there, which can be repeated, which set an AI agent to work. A host
decides from them without reading the descriptions: it may ask the person before a tool that is
not read-only, and warn before a destructive one."""

from __future__ import annotations

from mcp.types import ToolAnnotations

READING = frozenset(
    {
        *("list_projects", "project_status", "read_thread", "history"),
        *("read_document", "read_polish_record", "read_draft"),
    }
)
"""Tools that change nothing."""
UNDOING = frozenset({"realign", "rollback", "edit_draft", "decide"})
"""Tools that may remove or replace what was there: the messages after a correction, the files
as they are now, the AI's draft, the whole project (decide's terminate)."""
REPEATABLE = frozenset({"archive_project", "unarchive_project", "spend"})
"""Tools whose second identical call changes nothing more."""
LOCAL = frozenset({"archive_project", "unarchive_project", "rollback", "spend"})
"""Tools that change only this machine's files; every other change sets an AI agent to work."""


def hints(name: str) -> ToolAnnotations:
    """The annotations of the tool `name`. MCP reads an unset destructive hint as true, so every
    tool that changes something says which it is."""
    if name in READING:
        return ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)
    return ToolAnnotations(
        read_only_hint=False,
        destructive_hint=name in UNDOING,
        idempotent_hint=name in REPEATABLE,
        open_world_hint=name not in LOCAL,
    )
