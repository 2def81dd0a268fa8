"""Notion block objects as Markdown, for the pages and blocks the Markdown endpoint does not
give."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from thoughtforge.connectors.notion.links import PAGE_URL
from thoughtforge.connectors.notion.rich_text import plain, plain_all, rich_text_to_markdown

_LIST_KINDS = frozenset({"bulleted_list_item", "numbered_list_item", "to_do", "toggle"})
_CONTAINERS = frozenset({"column_list", "column", "synced_block", "tab", "transclusion_container"})
_SILENT = frozenset({"table_of_contents", "breadcrumb"})
_FILE_KINDS = frozenset({"file", "pdf", "video", "audio"})
_LINK_KINDS = frozenset({"bookmark", "embed", "link_preview"})
_HEADING = re.compile(r"heading_([1-6])")


def blocks_to_markdown(blocks: list[dict[str, Any]]) -> str:
    """Notion block objects (each with its `children` list loaded, when it has children) as
    Markdown: headings, paragraphs, nested lists, to-dos, fenced code, quotes, callouts (a quote
    led by the icon), tables, toggles (the summary as a list item, children nested under it),
    dividers, equations, child pages and linked pages as links to notion.so, images, files and
    bookmarks as links. Rich text keeps bold, italic, strikethrough, code and links."""
    return render(blocks, Counter())


def render(blocks: list[dict[str, Any]], unconverted: Counter[str]) -> str:
    parts: list[str] = []
    previous: str | None = None
    number = 0
    for block in blocks:
        kind = str(block.get("type") or "")
        if kind == "numbered_list_item":
            number = number + 1 if previous == "numbered_list_item" else 1
        text = _block(block, kind, number, unconverted)
        if text is None:
            continue
        if parts:
            family = _list_family(kind)
            tight = family is not None and previous is not None and family == _list_family(previous)
            parts.append("\n" if tight else "\n\n")
        parts.append(text)
        previous = kind
    return "".join(parts)


def _list_family(kind: str) -> str | None:
    """Items of one family follow each other without a blank line: one Markdown list."""
    if kind == "numbered_list_item":
        return "numbered"
    return "bulleted" if kind in _LIST_KINDS else None


def _block(block: dict[str, Any], kind: str, number: int, unconverted: Counter[str]) -> str | None:
    found = block.get(kind)
    data: dict[str, Any] = found if isinstance(found, dict) else {}
    children: list[dict[str, Any]] = block.get("children") or []
    if kind == "table":
        return _table(data, children)
    inner = render(children, unconverted) if children else ""
    rich = rich_text_to_markdown(data.get("rich_text") or [])
    heading = _HEADING.fullmatch(kind)
    if heading:
        return _then(f"{'#' * int(heading.group(1))} {rich}", inner)
    if kind == "paragraph":
        return _then(rich, inner) or None
    if kind == "bulleted_list_item":
        return _item("- ", rich, inner, children)
    if kind == "numbered_list_item":
        return _item(f"{number}. ", rich, inner, children)
    if kind == "to_do":
        checked = "- [x] " if data.get("checked") else "- [ ] "
        return _item(checked, rich, inner, children, indent=2)
    if kind == "toggle":
        return _item("- ", rich, inner, children)
    if kind == "quote":
        return _quote(_then(rich, inner))
    if kind == "callout":
        icon = _icon(data.get("icon"))
        return _quote(_then(f"{icon} {rich}" if icon else rich, inner))
    if kind == "code":
        return _code_block(data)
    if kind == "equation":
        return f"$$\n{data.get('expression', '')}\n$$"
    if kind == "divider":
        return "---"
    if kind in ("child_page", "child_database"):
        title = " ".join(str(data.get("title") or "").split()) or "Untitled"
        return f"[{_label(title)}]({PAGE_URL.format(_hex(block.get('id')))})"
    if kind == "link_to_page":
        target = data.get(str(data.get("type") or "page_id"))
        return f"[Linked page]({PAGE_URL.format(_hex(target))})" if target else None
    if kind == "image":
        url = _file_url(data)
        return f"![{_label(plain_all(data.get('caption')))}]({url})" if url else None
    if kind in _FILE_KINDS:
        url = _file_url(data)
        label = data.get("name") or plain_all(data.get("caption")) or kind
        return f"[{_label(str(label))}]({url})" if url else None
    if kind in _LINK_KINDS:
        url = str(data.get("url") or "")
        return f"[{_label(plain_all(data.get('caption')) or url)}]({url})" if url else None
    if kind in _CONTAINERS:
        return inner or None
    if kind in _SILENT:
        return None
    if rich:
        return _then(rich, inner)
    unconverted[kind or "unknown"] += 1
    return inner or None


def _then(first: str, inner: str) -> str:
    return f"{first}\n\n{inner}" if first and inner else first or inner


def _item(
    marker: str,
    text: str,
    inner: str,
    children: list[dict[str, Any]],
    *,
    indent: int | None = None,
) -> str:
    """A list item: `marker` and its text, then its children's Markdown nested under it."""
    pad = " " * (len(marker) if indent is None else indent)
    lines = text.split("\n")
    out = [marker + lines[0]] + [pad + line if line else line for line in lines[1:]]
    if inner:
        if _list_family(str(children[0].get("type"))) is None:
            out.append("")  # a nested paragraph, not a nested list: a blank line first
        out += [pad + line if line else line for line in inner.split("\n")]
    return "\n".join(out)


def _quote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))


def _icon(icon: Any) -> str:
    if not isinstance(icon, dict):
        return ""
    if icon.get("type") == "emoji":
        return str(icon.get("emoji") or "")
    if icon.get("type") == "custom_emoji":
        name = (icon.get("custom_emoji") or {}).get("name")
        return f":{name}:" if name else ""
    return ""


def _code_block(data: dict[str, Any]) -> str:
    source = "".join(plain(item) for item in data.get("rich_text") or [])
    language = str(data.get("language") or "")
    language = "" if language == "plain text" else language
    fence = "```"
    while fence in source:
        fence += "`"
    caption = plain_all(data.get("caption"))
    block = f"{fence}{language}\n{source}\n{fence}"
    return f"{block}\n\n{caption}" if caption else block


def _table(data: dict[str, Any], rows: list[dict[str, Any]]) -> str | None:
    cells = [
        [_cell(cell) for cell in (row.get("table_row") or {}).get("cells") or []]
        for row in rows
        if row.get("type") == "table_row"
    ]
    if not cells:
        return None
    width = max([int(data.get("table_width") or 0)] + [len(row) for row in cells])
    cells = [row + [""] * (width - len(row)) for row in cells]
    header = cells.pop(0) if data.get("has_column_header") else [""] * width
    lines = [_row(header), _row(["---"] * width)] + [_row(row) for row in cells]
    return "\n".join(lines)


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _cell(items: list[dict[str, Any]]) -> str:
    return rich_text_to_markdown(items).replace("|", "\\|").replace("\n", "<br>")


def _file_url(data: dict[str, Any]) -> str:
    hosted = data.get(str(data.get("type") or "")) or data.get("external") or data.get("file")
    return str((hosted or {}).get("url") or "") if isinstance(hosted, dict) else ""


def _hex(block_id: Any) -> str:
    return str(block_id or "").replace("-", "")


def _label(text: str) -> str:
    return text.replace("[", "\\[").replace("]", "\\]")
