"""The Markdown of one Notion page: the Markdown endpoint with the blocks it could not render
fetched in, or a walk of the page's blocks when that endpoint is refused."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from thoughtforge.connectors.notion.blocks import render
from thoughtforge.connectors.notion.errors import NAME
from thoughtforge.connectors.notion.links import HEX32, bare_id, dashed, url_parts
from thoughtforge.connectors.notion.session import Refusal, Session, logger
from thoughtforge.errors import ConnectorError

PAGE_SIZE = 100
"""Children asked for per request: the API's maximum."""
MAX_BLOCKS = 20_000
"""A block walk stops with `too_large` past this many blocks (Notion's own Markdown endpoint
gives up near the same number)."""
MAX_FOLLOW_UPS = 200
"""Unknown blocks fetched per page; the rest are named in `Fetched.skipped`."""

_MARKDOWN_REFUSED = frozenset({400, 403, 404})
_UNKNOWN_TAG = re.compile(r"<unknown\b[^>]*?\burl=\"([^\"]*)\"[^>]*?/>")


@dataclass
class _Text:
    markdown: str
    skipped: list[str] = field(default_factory=list)


class Content:
    """The Markdown of one page: the Markdown endpoint with its unknown blocks followed, or the
    block walk when that endpoint is refused."""

    def __init__(self, session: Session, max_blocks: int) -> None:
        self._session = session
        self._max_blocks = max_blocks
        self._blocks = 0
        self._follow_ups = 0
        self._seen: set[str] = set()
        self._skipped: list[str] = []
        self._unconverted: Counter[str] = Counter()

    def of_page(self, page_id: str) -> _Text:
        self._seen.add(page_id)
        markdown = self._markdown(page_id)
        if markdown is None:
            logger.info("notion: reading page %s block by block", page_id)
            markdown = self._walk(page_id)
        for kind, count in sorted(self._unconverted.items()):
            self._skipped.append(f"{count} block(s) of type '{kind}': no Markdown for them")
        text = markdown.strip("\n")
        return _Text(f"{text}\n" if text else "", self._skipped)

    def _markdown(self, block_id: str) -> str | None:
        """The Markdown endpoint's text for a page, unknown blocks followed; `None` when the
        endpoint is refused."""
        answer = self._ask_markdown(block_id)
        return None if isinstance(answer, Refusal) else self._follow(block_id, answer)

    def _ask_markdown(self, block_id: str) -> dict[str, Any] | Refusal:
        return self._session.call_or_refusal(
            f"GET pages/{block_id}/markdown",
            lambda c: c.pages.retrieve_markdown(block_id),
            refused=_MARKDOWN_REFUSED,
        )

    def _follow(self, block_id: str, answer: dict[str, Any]) -> str:
        """The text of one Markdown answer, with each unknown block it names fetched in."""
        markdown = str(answer.get("markdown") or "")
        unknown = _unknown_ids(answer)
        for unknown_id in unknown:
            if unknown_id in self._seen:
                continue
            self._seen.add(unknown_id)
            if self._follow_ups >= MAX_FOLLOW_UPS:
                self._skipped.append(
                    f"block {unknown_id}: not fetched (over {MAX_FOLLOW_UPS} unknown blocks)"
                )
                continue
            self._follow_ups += 1
            markdown = _splice(markdown, unknown_id, self._unknown_block(unknown_id))
        if answer.get("truncated") and not unknown:
            self._skipped.append(
                f"{block_id}: Notion truncated its Markdown and named no remaining blocks"
            )
        return markdown

    def _unknown_block(self, block_id: str) -> str | None:
        """The content of one block the Markdown endpoint left out, or `None` (named in
        `skipped`) when the integration may not read it."""
        answer = self._ask_markdown(block_id)
        if isinstance(answer, Refusal) and answer.status == 404:
            self._skipped.append(f"block {block_id}: not shared with the integration (404)")
            return None
        if isinstance(answer, Refusal) or block_id in _unknown_ids(answer):
            # No Markdown for this block (for its type, or from this endpoint): convert it here.
            block = self._session.call_or_refusal(
                f"GET blocks/{block_id}",
                lambda c: c.blocks.retrieve(block_id),
                refused=frozenset({403, 404}),
            )
            if isinstance(block, Refusal):
                self._skipped.append(f"block {block_id}: no access to it ({block.status})")
                return None
            self._load_children(block)
            return render([block], self._unconverted)
        return self._follow(block_id, answer)

    def _walk(self, block_id: str) -> str:
        return render(self._children(block_id), self._unconverted)

    def _children(self, block_id: str) -> list[dict[str, Any]]:
        """Every child of a block, every page of them, each with its own `children` loaded."""
        children: list[dict[str, Any]] = []
        cursor: str | None = None
        while True:
            query: dict[str, Any] = {"page_size": PAGE_SIZE}
            if cursor:
                query["start_cursor"] = cursor

            def list_page(c: Any, query: dict[str, Any] = query) -> Any:
                return c.blocks.children.list(block_id=block_id, **query)

            answer = self._session.call(f"GET blocks/{block_id}/children", list_page)
            for block in answer.get("results") or []:
                if not isinstance(block, dict):
                    continue
                self._blocks += 1
                if self._blocks > self._max_blocks:
                    raise ConnectorError(
                        NAME,
                        self._session.resource,
                        "too_large",
                        f"the page has more than {self._max_blocks} blocks",
                    )
                self._load_children(block)
                children.append(block)
            cursor = answer.get("next_cursor")
            if not answer.get("has_more") or not cursor:
                return children

    def _load_children(self, block: dict[str, Any]) -> None:
        # A child page's or database's content is another page: it is linked, not inlined.
        if block.get("has_children") and block.get("type") not in ("child_page", "child_database"):
            block["children"] = self._children(str(block["id"]))


def _unknown_ids(answer: dict[str, Any]) -> list[str]:
    ids = answer.get("unknown_block_ids") or []
    return [dashed(str(i)) for i in ids if bare_id(str(i))]


def _splice(markdown: str, block_id: str, content: str | None) -> str:
    """`markdown` with the `<unknown url=".."/>` tag of `block_id` replaced by `content`
    (indented like the tag), or `content` appended when no tag names the block."""
    if content is None:
        return markdown
    content = content.strip("\n")
    wanted = block_id.replace("-", "")
    for tag in _UNKNOWN_TAG.finditer(markdown):
        if _tag_block(tag.group(1)) != wanted:
            continue
        line_start = markdown.rfind("\n", 0, tag.start()) + 1
        prefix = markdown[line_start : tag.start()]
        indent = prefix if not prefix.strip() else ""
        body = "\n".join(f"{indent}{line}" if line else line for line in content.split("\n"))
        return markdown[:line_start] + body + markdown[tag.end() :]
    if not content:
        return markdown
    return f"{markdown.rstrip()}\n\n{content}" if markdown.strip() else content


def _tag_block(url: str) -> str | None:
    """The block an unknown tag's URL points at: its `#fragment` id, else the last id in it."""
    parts = url_parts(url.replace("&amp;", "&"))
    if parts is None:
        return None
    fragment = parts.fragment.lower().replace("-", "")
    if HEX32.fullmatch(fragment):
        return fragment
    ids = HEX32.findall(url.lower().replace("-", ""))
    return ids[-1] if ids else None
