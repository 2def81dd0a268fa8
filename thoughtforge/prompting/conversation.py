"""A phase's chat turns as the conversation text of a prompt, cut to fit the agent's window."""

from __future__ import annotations

from pydantic import BaseModel

from thoughtforge.core.state import ChatMessage
from thoughtforge.prompting.context_window import keep_recent


class Conversation(BaseModel):
    text: str
    dropped: int


def turn_text(message: ChatMessage) -> str:
    """One chat turn as the prompts show it; a draft the person edited says so, so the AI keeps
    their changes."""
    if message.edited:
        return f"AI (this draft as the human edited it):\n{message.content}"
    return f"{'Human' if message.role == 'human' else 'AI'}:\n{message.content}"


def fit_conversation(turns: list[ChatMessage], max_tokens: int, anchored: int = 0) -> Conversation:
    """Oldest turns go first, except the first `anchored` (the brain dump), which always stay."""
    kept, _ = keep_recent([turn_text(m) for m in turns], max_tokens, anchored)
    return Conversation(text="\n\n".join(kept), dropped=len(turns) - len(kept))
