"""Notion links: which URLs are Notion's, and the page id (a dashed UUID) a URL or a bare id
names."""

from __future__ import annotations

import re
from urllib.parse import SplitResult, parse_qs, urlsplit

from thoughtforge.connectors.notion.errors import malformed

PAGE_URL = "https://www.notion.so/{}"
"""Where a page id is opened in Notion (links to child pages use it)."""
_NOTION_HOSTS = ("notion.so", "notion.site")
"""Hosts that are these domains or their subdomains (`www.notion.so`, `acme.notion.site`)."""
_OTHER_HOSTS = frozenset({"app.notion.com"})
"""Notion's own links to a page or block (`https://app.notion.com/p/<id>`)."""
HEX32 = re.compile(r"[0-9a-f]{32}")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_ID_AT_END = re.compile(r"(?:^|-)([0-9a-f]{32})$")


def dashed(hex32: str) -> str:
    h = hex32.replace("-", "").lower()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def bare_id(text: str) -> str | None:
    candidate = text.strip().lower()
    if HEX32.fullmatch(candidate) or _UUID.fullmatch(candidate):
        return dashed(candidate)
    return None


def url_parts(text: str) -> SplitResult | None:
    text = text.strip()
    try:
        return urlsplit(text if "://" in text else f"https://{text}")
    except ValueError:
        return None


def is_notion_host(host: str | None) -> bool:
    if not host:
        return False
    host = host.lower().rstrip(".")
    return host in _OTHER_HOSTS or any(
        host == domain or host.endswith(f".{domain}") for domain in _NOTION_HOSTS
    )


def _id_in_segment(segment: str) -> str | None:
    segment = segment.lower()
    found = _ID_AT_END.search(segment)
    if found:
        return dashed(found.group(1))
    return bare_id(segment)


def page_id_from(url: str) -> str:
    """The page id (dashed UUID) behind a Notion URL or a bare id.

    `https://www.notion.so/<workspace>/<Title>-<32hex>`, `https://notion.so/<Title>-<32hex>`,
    `https://<workspace>.notion.site/<Title>-<32hex>`, `https://app.notion.com/p/<32hex>`, a bare
    32-hex id or a dashed UUID. `?p=<id>` (a page opened as a peek over another) wins over the
    path; `?v=` (a database view), other parameters and `#anchors` do not change the page.
    `ConnectorError(kind="malformed_url")` for anything else."""
    bare = bare_id(url)
    if bare:
        return bare
    parts = url_parts(url)
    if parts is None or not is_notion_host(parts.hostname):
        raise malformed(url, "not a Notion page URL")
    for peek in parse_qs(parts.query).get("p", []):
        found = bare_id(peek)
        if found:
            return found
    segments = [segment for segment in parts.path.split("/") if segment]
    found = _id_in_segment(segments[-1]) if segments else None
    if found:
        return found
    raise malformed(url, "this Notion URL names no page (no 32-character page id in it)")
