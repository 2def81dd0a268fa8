"""What MCP's tool annotations say of each tool, declared where the tool is defined (`@tool`):
which only read, which may remove or replace what was there, which can be repeated, which set
an AI agent to work. A host decides from them without reading the descriptions: it may ask the
person before a tool that is not read-only, and warn before a destructive one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from mcp.types import ToolAnnotations

F = TypeVar("F", bound=Callable[..., Any])

HINTS: dict[str, ToolAnnotations] = {}
"""Each tool's annotations, by its name, as its `@tool` declared them."""


def tool(
    *, reads: bool = False, undoes: bool = False, repeatable: bool = False, local: bool = False
) -> Callable[[F], F]:
    """Declare a tool's annotations beside its definition. `reads`: it changes nothing;
    `undoes`: it may remove or replace what was there (the messages after a correction, the
    files as they are now, the AI's draft, the whole project); `repeatable`: a second identical
    call changes nothing more; `local`: it changes only this machine's files (every other change
    sets an AI agent to work). MCP reads an unset destructive hint as true, so every tool that
    changes something says which it is."""

    def declared(function: F) -> F:
        if reads:
            hints = ToolAnnotations(
                read_only_hint=True, idempotent_hint=True, open_world_hint=False
            )
        else:
            hints = ToolAnnotations(
                read_only_hint=False,
                destructive_hint=undoes,
                idempotent_hint=repeatable,
                open_world_hint=not local,
            )
        HINTS[function.__name__] = hints
        return function

    return declared
