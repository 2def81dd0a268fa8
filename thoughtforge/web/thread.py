"""A project's chat as the page shows it: every message labelled with its phase and time, the
person's, the AI's and the system's apart, realign points marked, Markdown rendered inert.

Everything in a chat is untrusted (the AI's text, the person's, file names in notices), so the
Markdown renderer has raw HTML off and refuses `javascript:`-style links (markdown-it's
`validateLink`); what it outputs is escaped text and its own tags. A long thread opens at its
newest `PAGE_SIZE` messages; older pages are fetched when the person scrolls back.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token

from thoughtforge.actions.thread import WORD_DIFF_FENCE, Thread, ThreadMessage, marked_lines

PAGE_SIZE = 200
ROLE_NAMES = {"human": "You", "ai": "ThoughtForge", "system": "Notice"}

_MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
_TAGS = {"removed": "del", "added": "ins"}


def _fence(renderer: Any, tokens: Sequence[Token], index: int, options: Any, env: Any) -> str:
    """A `word-diff` block as History shows a change (the same `<del>`/`<ins>`); any other
    fence as markdown-it renders it."""
    token = tokens[index]
    if token.info.strip() != WORD_DIFF_FENCE:
        return str(_plain_fence(tokens, index, options, env))
    lines = [
        "".join(
            f"<{_TAGS[p.kind]}>{escape(p.text)}</{_TAGS[p.kind]}>"
            if p.kind in _TAGS
            else escape(p.text)
            for p in pieces
        )
        for pieces in marked_lines(token.content)
    ]
    return '<div class="word-diff">' + "\n".join(lines) + "</div>\n"


_plain_fence = RendererHTML().rules["fence"]
"""markdown-it's own rendering of a fence, for every fence but a word diff."""
_MARKDOWN.add_render_rule("fence", _fence)


class MessageView(ThreadMessage):
    """One message of the thread's read model (`actions.thread`), with what the `message.html`
    template adds: who wrote it, in the page's words, and its text rendered inert."""

    who: str
    html: str


def render_markdown(text: str) -> str:
    """Markdown as HTML in which no tag, attribute or link comes from the text itself."""
    return str(_MARKDOWN.render(text))


def message_view(message: ThreadMessage) -> MessageView:
    return MessageView(
        **dict(message), who=ROLE_NAMES[message.role], html=render_markdown(message.content)
    )


def views(thread: Thread, start: int, end: int | None = None) -> list[MessageView]:
    """The messages from `start` (inclusive) to `end` (exclusive), as views."""
    return [message_view(message) for message in thread.messages(start, end)]


def newest_page_start(length: int) -> int:
    """Where the first page of a thread of `length` messages starts."""
    return max(length - PAGE_SIZE, 0)
