"""A program's colours, cursor moves and window titles never reach a halt message: they are
removed, and any other control made visible."""

from __future__ import annotations

from thoughtforge.errors import PhaseHalt
from thoughtforge.models import HaltReason
from thoughtforge.terminal_text import without_escapes


def test_escape_sequences_are_removed_and_other_controls_made_visible() -> None:
    text = "\x1b[1;31mred\x1b[0m \x1b]0;title\x07done\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ \x07"
    assert without_escapes(text) == "red donelink \\x07"
    assert without_escapes("two\nlines\tkept") == "two\nlines\tkept"


def test_a_halt_message_never_carries_terminal_escapes() -> None:
    halt = PhaseHalt(HaltReason.STUCK, "Stuck: \x1b[31mFAILED\x1b[0m test_x")
    assert str(halt) == "Stuck: FAILED test_x"
