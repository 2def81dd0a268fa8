"""Counts in words meant for people: "1 iteration", "3 iterations", never "1 iterations"."""

from __future__ import annotations


def plural(count: int, word: str, many: str | None = None) -> str:
    """`count` and `word`, the plural (`many`, else `word` + "s") for any count but one."""
    return f"{count:,} {word}" if count == 1 else f"{count:,} {many or word + 's'}"
