"""Escaping that keeps AI text from changing a Markdown plan's structure.

pybars escapes for HTML, which would garble a Markdown plan (`&` → `&amp;`). Slot helpers instead
insert text escaped by these rules: nothing is HTML-escaped, and since Handlebars output is never
parsed again, `{{x}}` in AI text stays literal. Each `escape_*` has an `unescape_*` so a plan read
back from disk yields the text that was put in (up to line-ending style, and a literal `<br>`
written by the AI, which reads back as the line break it means in Markdown).
"""

from __future__ import annotations

import html
import re

LINE_BREAK_TAG = "<br>"

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# A backslash run right before a pipe or a line's end would escape the pipe, the `<br>` we add or
# the template's next character, so such runs are doubled; inside a line they are left as written.
_CELL_RUN = re.compile(r"(\\*)(\||\Z)")
_PARAGRAPH_RUN = re.compile(r"(\\*)(\Z)")
_ESCAPED_CELL_RUN = re.compile(r"(\\+)(\||\Z)")
_ESCAPED_PARAGRAPH_RUN = re.compile(r"(\\+)(\Z)")


def escape_cell(text: str) -> str:
    """A table cell must stay on one line and must not contain a pipe that splits it."""
    return _escape_lines(text, _CELL_RUN)


def unescape_cell(cell: str) -> str:
    """The text `escape_cell` was given."""
    return _unescape_lines(cell, _ESCAPED_CELL_RUN)


def escape_paragraph(text: str) -> str:
    """A paragraph slot stays on its label's line, so no line of AI text can start a new block."""
    return _escape_lines(text, _PARAGRAPH_RUN)


def unescape_paragraph(paragraph: str) -> str:
    """The text `escape_paragraph` was given."""
    return _unescape_lines(paragraph, _ESCAPED_PARAGRAPH_RUN)


def escape_inline(text: str) -> str:
    """Short text such as the project name: whitespace collapsed, safe in a heading or a cell."""
    return escape_cell(" ".join(text.split()))


def escape_untrusted(text: str) -> str:
    """Agent text quoted in a document the human reads (the polish log): one line, so it cannot
    start a heading or a block, and no HTML, so it cannot hide or restyle what follows."""
    return escape_paragraph(html.escape(text, quote=False))


def _escape_lines(text: str, run: re.Pattern[str]) -> str:
    lines = _LINE_BREAK.split(text.strip())
    return LINE_BREAK_TAG.join(run.sub(_double_run, line) for line in lines)


def _unescape_lines(text: str, escaped_run: re.Pattern[str]) -> str:
    lines = text.split(LINE_BREAK_TAG)
    return "\n".join(escaped_run.sub(_halve_run, line) for line in lines)


def _double_run(match: re.Match[str]) -> str:
    backslashes, pipe = match.groups()
    return backslashes * 2 + ("\\|" if pipe else "")


def _halve_run(match: re.Match[str]) -> str:
    backslashes, pipe = match.groups()
    return backslashes[: len(backslashes) // 2] + pipe
