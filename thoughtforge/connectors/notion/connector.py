"""The Notion connector: a page URL (or a bare page id) in, the page as Markdown out."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from notion_client import Client

from thoughtforge.config import NotionConfig
from thoughtforge.connectors.document import Document, Fetched
from thoughtforge.connectors.notion.content import MAX_BLOCKS, Content
from thoughtforge.connectors.notion.errors import NAME, masker, sdk_logger
from thoughtforge.connectors.notion.links import (
    PAGE_URL,
    bare_id,
    is_notion_host,
    page_id_from,
    url_parts,
)
from thoughtforge.connectors.notion.rich_text import plain
from thoughtforge.connectors.notion.session import Session
from thoughtforge.errors import ConnectorError


class NotionConnector:
    """Pulls Notion pages as Markdown; see the package's docstring for how.

    `sleep` is what waits out a rate limit (tests pass a recorder); `max_blocks` bounds a block
    walk (`too_large` past it)."""

    name = NAME

    def __init__(
        self,
        config: NotionConfig,
        *,
        sleep: Callable[[float], None] = time.sleep,
        max_blocks: int = MAX_BLOCKS,
    ) -> None:
        self._config = config
        self._sleep = sleep
        self._max_blocks = max_blocks
        self._base_url = str(config.base_url).rstrip("/") if config.base_url else None
        self._token = config.token.get_secret_value().strip() if config.token else ""
        if self._token:
            masker.add(self._token)

    def matches(self, url: str) -> bool:
        """A notion.so / notion.site (or app.notion.com) URL, with or without a page id in it,
        or a bare page id."""
        if bare_id(url):
            return True
        parts = url_parts(url)
        return parts is not None and is_notion_host(parts.hostname)

    def fetch(self, url: str) -> Fetched:
        """The page behind `url` as one Markdown document."""
        page_id = page_id_from(url)
        with self._session(url) as session:
            page = session.call(f"GET pages/{page_id}", lambda c: c.pages.retrieve(page_id))
            text = Content(session, self._max_blocks).of_page(page_id)
        # the page's own link, whichever form was given: a second pull refreshes the same file
        source_url = str(page.get("url") or PAGE_URL.format(page_id.replace("-", "")))
        document = Document(title=page_title(page), source_url=source_url, text=text.markdown)
        return Fetched(documents=[document], skipped=text.skipped)

    def check(self) -> str:
        """`token works (bot '<name>', workspace '<workspace>')`, from `users.me`."""
        with self._session(self._base_url or "https://api.notion.com") as session:
            me = session.call("GET users/me", lambda c: c.users.me())
        kind = me.get("type") or "bot"
        name = me.get("name") or me.get("id") or "unnamed"
        workspace = (me.get("bot") or {}).get("workspace_name")
        where = f", workspace '{workspace}'" if workspace else ""
        return f"token works ({kind} '{name}'{where})"

    def _session(self, resource: str) -> Session:
        token = self._token
        if not token:
            raise ConnectorError(
                NAME, resource, "auth", "no token is set (connectors.notion.token in config.yaml)"
            )
        if not (token.isascii() and token.isprintable()):
            raise ConnectorError(
                NAME, resource, "auth", "the token holds characters an HTTP header cannot carry"
            )
        options: dict[str, Any] = {
            "auth": token,
            "timeout_ms": max(1, round(self._config.timeout_seconds * 1000)),
            "retry": False,
            "logger": sdk_logger,
            # The client sets this level on its logger: keep what the application configured,
            # else only its errors (its warnings repeat what the ConnectorError says).
            "log_level": sdk_logger.level or logging.ERROR,
        }
        if self._base_url:
            options["base_url"] = self._base_url
        return Session(Client(**options), token, resource, self._sleep, self._config)


def page_title(page: dict[str, Any]) -> str:
    """The plain text of the page's `title` property (whatever its name), or `Untitled`."""
    for prop in (page.get("properties") or {}).values():
        if isinstance(prop, dict) and prop.get("type") == "title":
            title = "".join(plain(item) for item in prop.get("title") or [])
            return " ".join(title.split()) or "Untitled"
    return "Untitled"
