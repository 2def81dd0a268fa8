"""Keep prompts inside an agent's `context_window_tokens`.

Token counts are estimates (about four characters per token for English prose and code), which is
close enough to decide when to cut, and needs no tokenizer for agents we cannot see inside.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel

CHARS_PER_TOKEN = 4
TRUNCATION_MARK = "\n[… truncated to fit the agent's context window …]\n"


class Fitted(BaseModel):
    text: str
    truncated: bool


def estimate_tokens(text: str) -> int:
    """About four characters per token: close enough to decide when to cut."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def truncate_text(text: str, max_tokens: int, keep: Literal["head", "tail"] = "head") -> Fitted:
    """Cut `text` to about `max_tokens`, keeping its start (documents) or its end (logs)."""
    if estimate_tokens(text) <= max_tokens:
        return Fitted(text=text, truncated=False)
    room = max(0, max_tokens * CHARS_PER_TOKEN - len(TRUNCATION_MARK))
    if keep == "head":
        kept = text[:room] + TRUNCATION_MARK
    else:
        kept = TRUNCATION_MARK + text[len(text) - room :]
    return Fitted(text=kept, truncated=True)


def keep_recent(items: Sequence[str], max_tokens: int, anchored: int = 0) -> tuple[list[str], bool]:
    """Drop the oldest items (after the first `anchored`, which always stay) until they fit.

    Chat history uses this: the brain dump anchors the conversation, the latest turns matter most.
    """
    anchors = list(items[:anchored])
    budget = max_tokens - sum(estimate_tokens(item) for item in anchors)
    kept: list[str] = []
    for item in reversed(items[anchored:]):
        cost = estimate_tokens(item)
        if cost > budget:
            break
        kept.append(item)
        budget -= cost
    kept.reverse()
    return anchors + kept, len(anchors) + len(kept) < len(items)
