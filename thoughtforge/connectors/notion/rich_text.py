"""Notion rich text (a list of text, mention and equation items) as inline Markdown."""

from __future__ import annotations

import re
from typing import Any


def plain(item: dict[str, Any]) -> str:
    if not isinstance(item, dict):
        return ""
    if "plain_text" in item:
        return str(item.get("plain_text") or "")
    return str((item.get("text") or {}).get("content") or "")


def plain_all(items: Any) -> str:
    return "".join(plain(item) for item in items or []).strip()


def rich_text_to_markdown(items: list[dict[str, Any]]) -> str:
    """Notion rich text as inline Markdown: `code`, ~~strikethrough~~, *italic*, **bold**
    and [links](url) (a link's or mention's `href`); inline equations as `$...$`."""
    return "".join(_segment(item) for item in items if isinstance(item, dict))


def _segment(item: dict[str, Any]) -> str:
    if item.get("type") == "equation":
        text = f"${(item.get('equation') or {}).get('expression', '')}$"
    else:
        text = plain(item)
    core = text.strip()
    if not core:
        return text
    lead = text[: len(text) - len(text.lstrip())]
    trail = text[len(text.rstrip()) :]
    notes = item.get("annotations") or {}
    if notes.get("code"):
        core = _code_span(core)
    if notes.get("strikethrough"):
        core = f"~~{core}~~"
    if notes.get("italic"):
        core = f"*{core}*"
    if notes.get("bold"):
        core = f"**{core}**"
    link = item.get("href") or (((item.get("text") or {}).get("link")) or {}).get("url")
    if link:
        core = f"[{core}]({link})"
    return f"{lead}{core}{trail}"


def _code_span(text: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"
