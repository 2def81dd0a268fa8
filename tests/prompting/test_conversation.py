from __future__ import annotations

from thoughtforge.core.state import ChatMessage
from thoughtforge.models import Phase
from thoughtforge.prompting import fit_conversation


def _turn(role: str, words: int) -> ChatMessage:
    return ChatMessage(role=role, content="word " * words, phase=Phase.HUMAN_REVIEW)  # type: ignore[arg-type]


def test_labels_turns_and_keeps_anchor_and_newest() -> None:
    turns = [_turn("human", 20), _turn("ai", 200), _turn("human", 5), _turn("ai", 5)]
    fitted = fit_conversation(turns, max_tokens=70, anchored=1)
    assert fitted.dropped == 1
    assert fitted.text.startswith("Human:\nword") and fitted.text.count("AI:\n") == 1
    assert fit_conversation(turns, max_tokens=10_000).dropped == 0
