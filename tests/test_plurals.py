"""Counted words: one is singular, every other count (zero too) plural, with thousands marked."""

from __future__ import annotations

import pytest

from thoughtforge.plurals import plural


@pytest.mark.parametrize(
    ("count", "expected"),
    [(0, "0 iterations"), (1, "1 iteration"), (2, "2 iterations"), (1200, "1,200 iterations")],
)
def test_one_is_singular_and_every_other_count_plural(count: int, expected: str) -> None:
    assert plural(count, "iteration") == expected


def test_an_irregular_plural_is_given() -> None:
    assert plural(1, "child", "children") == "1 child"
    assert plural(3, "child", "children") == "3 children"
