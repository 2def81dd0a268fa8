from __future__ import annotations

from thoughtforge.prompting.context_window import (
    TRUNCATION_MARK,
    estimate_tokens,
    keep_recent,
    truncate_text,
)


def test_estimate_is_four_characters_per_token_rounded_up() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd") == 1
    assert estimate_tokens("abcde") == 2


def test_text_that_fits_is_untouched() -> None:
    fitted = truncate_text("x" * 400, 100)
    assert fitted.text == "x" * 400 and not fitted.truncated


def test_head_and_tail_truncation_fit_the_budget_and_say_so() -> None:
    text = "".join(f"line {n}\n" for n in range(1000))
    head = truncate_text(text, 100)
    tail = truncate_text(text, 100, keep="tail")
    for fitted in (head, tail):
        assert fitted.truncated and TRUNCATION_MARK in fitted.text
        assert estimate_tokens(fitted.text) <= 100
    assert head.text.startswith("line 0\n") and tail.text.endswith("line 999\n")


def test_keep_recent_keeps_anchors_and_newest_items() -> None:
    items = ["BRAIN DUMP " * 10, "old " * 50, "middle " * 10, "newest " * 10]
    kept, truncated = keep_recent(items, max_tokens=70, anchored=1)
    assert truncated
    assert kept == [items[0], items[2], items[3]]
    assert keep_recent(items, max_tokens=10_000, anchored=1) == (items, False)
