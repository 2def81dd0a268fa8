"""Which sources Phase 1 pulls: the configured defaults, and the links the human put in the chat.

A link is pulled once: a source whose file is already in `resources/` is left alone here (the
`pull` command refreshes it on demand). A link on a connector's host that names no page or file,
or one for a connector that is not enabled, is answered in the chat, never pulled.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from thoughtforge.config import Config
from thoughtforge.connectors.writing import pulled_sources
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import read_events
from thoughtforge.core.state import read_chat

_URL = re.compile(r"https?://[^\s<>\"'`]+")
_TRAILING = ".,;:!?)]}>*_"


def urls_in(text: str) -> list[str]:
    """The http(s) links in `text`, without the punctuation that ends a sentence around them."""
    return [match.group(0).rstrip(_TRAILING) for match in _URL.finditer(text)]


def default_sources(config: Config) -> list[str]:
    """The pages and documents every project pulls, of the connectors that are enabled."""
    notion, drive = config.connectors.notion, config.connectors.google_drive
    return [
        *(notion.default_pages if notion.enabled else []),
        *(drive.default_documents if drive.enabled else []),
    ]


def unique(urls: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(url.strip() for url in urls if url.strip()))


def wanted_sources(project: Project, config: Config) -> list[str]:
    """The defaults and the human's chat links that no earlier pull has brought in yet."""
    said = [m.content for m in read_chat(project.dir) if m.role == "human"]
    links = unique([*default_sources(config), *(url for text in said for url in urls_in(text))])
    done = set(pulled_sources(project.resources_dir))
    done |= {
        str(e["source"])
        for e in read_events(project.dir)
        if e["event"] == "connector_pulled" and e.get("source")
    }
    return [url for url in links if url not in done]
