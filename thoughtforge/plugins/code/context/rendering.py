"""Files as fenced Markdown blocks under their path, and the counts the texts name."""

from __future__ import annotations

import re

from thoughtforge.plurals import plural


def file_block(path: str, text: str, lines: int, fence: str | None = None) -> str:
    """One file as a fenced block under its path; the fence outruns any backtick run inside."""
    fence = fence or fence_for(text)
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"### {path} ({plural(lines, 'line')})\n{fence}\n{body}{fence}\n\n"


def fence_for(text: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def line_count(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)
