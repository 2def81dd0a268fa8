"""Untrusted text as a terminal shows it: inert.

Names, messages, file names and link targets come from agents and files, and reach terminals
through `status`, `board`, errors and the run log. A name holding `[/x]` is rich markup (it made
`status` crash for every project); one holding ESC can clear the screen, set the window title or
write the clipboard (OSC 52). So every printer passes such text through `inert` (`inert_text`
for rich, which never parses markup; `inert_markup` inside a markup string): control and escape
characters become visible escapes (`\\x1b`), and only newlines and tabs keep their meaning.
"""

from __future__ import annotations

import re

from rich.markup import escape
from rich.text import Text

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""C0 and C1 controls (ESC, CR, BEL, CSI…), DEL, and the bidirectional overrides that reorder
what a line seems to say."""


def inert(text: str) -> str:
    """`text` with every control character written out as an escape, so none acts."""
    return _CONTROL.sub(_escape, text)


def inert_text(text: str, style: str = "") -> Text:
    """`inert(text)` as a rich `Text`: printed as written, never read as markup."""
    return Text(inert(text), style=style)


def inert_markup(text: str) -> str:
    """`inert(text)` to put inside a rich markup string: its brackets are escaped too."""
    return escape(inert(text))


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


_ESCAPE_SEQUENCE = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])"
)
"""ANSI escape sequences: CSI (colours, cursor moves), OSC (titles, links, clipboard), and the
two-character ones."""


def without_escapes(text: str) -> str:
    """`text` with its ANSI escape sequences removed and any other control made `inert`: how a
    program's coloured message reads in a halt, a log or a page."""
    return inert(_ESCAPE_SEQUENCE.sub("", text))
