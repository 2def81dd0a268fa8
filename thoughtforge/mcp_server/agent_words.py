"""The page's words turned into an agent's: a note that says to press a button says which tool
to call. The notes themselves are the page's (`actions.composer`, `actions.inbox`, ...), so an
agent and a person read the same state; only the way to act differs."""

from __future__ import annotations

import re

from thoughtforge.catalogue import ACTIONS

TOOL_OF_BUTTON = {action.label: action.mcp_call for action in ACTIONS.values()}
"""Each button's tool, the catalogue's columns side by side."""
_BUTTON = "|".join(sorted(map(re.escape, TOOL_OF_BUTTON), key=len, reverse=True))
_PRESSED = re.compile(rf"\b(press|then|or) ({_BUTTON})\b")
_PRESS_IT = re.compile(r"\bpress it again\b")


def for_agent(note: str) -> str:
    """`note` with each "press <button>" (and "then/or <button>") naming the tool instead."""
    note = _PRESSED.sub(
        lambda m: f"{'call' if m[1] == 'press' else m[1]} {TOOL_OF_BUTTON[m[2]]}", note
    )
    return _PRESS_IT.sub("call the tool again", note)
