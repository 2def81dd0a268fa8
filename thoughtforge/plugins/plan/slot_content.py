"""When text counts as filling a slot: the spec allows no empty or placeholder content in a plan.

A placeholder is "TBD", "TODO" or "placeholder" as a whole word in any case, plural included
("TODOs", "[Placeholder]", "tbd."), but not inside a longer word ("Todoist"). A plan about a to-do
app must therefore write "to-do": the retry prompt quotes the offending word, so the agent can.
"""

from __future__ import annotations

import re

_PLACEHOLDER = re.compile(r"\b(?:tbd|todo|placeholder)s?\b", re.IGNORECASE)


def unfilled_reason(text: str) -> str | None:
    """Why `text` cannot fill a slot, or None when it can."""
    if not any(char.isalnum() for char in text):
        return "empty"
    placeholder = _PLACEHOLDER.search(text)
    if placeholder:
        return f"placeholder text '{placeholder.group(0)}'"
    return None
