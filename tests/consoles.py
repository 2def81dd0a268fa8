"""The consoles a listing must draw the same on: plain, colour, and one writing only ASCII."""

from __future__ import annotations

from collections.abc import Callable
from io import StringIO

from rich.console import Console


class _AsciiFile(StringIO):
    encoding = "ascii"


CONSOLES: dict[str, Callable[[int], Console]] = {
    "plain": lambda width: Console(file=StringIO(), width=width, color_system=None),
    "colour": lambda width: Console(
        file=StringIO(), width=width, force_terminal=True, color_system="truecolor"
    ),
    "ascii": lambda width: Console(file=_AsciiFile(), width=width, color_system=None),
}
