"""The Notion connector: a page URL (or a bare page id) in, the page as Markdown out.

It talks to the Notion API through `notion-client` (`Client(auth=..., base_url=...,
timeout_ms=...)`):

* the page object (`pages.retrieve`) gives the title: the property of type `title`;
* the content comes from the Markdown endpoint (`pages.retrieve_markdown`,
  `GET /v1/pages/{id}/markdown`). Its answer names the blocks it could not render
  (`unknown_block_ids`, shown as `<unknown url=".." alt=".."/>` tags; `truncated` when the page
  passed Notion's record limit). Each of those ids is passed back to the same endpoint, as the
  API reference says to, and its Markdown takes the place of its tag (or is appended when no tag
  names it). An id that answers 404 (not shared with the integration) is left as its tag and
  named in `Fetched.skipped`; one the endpoint still cannot render (a bookmark, an embed) is read
  with `blocks.retrieve` and converted here;
* when the Markdown endpoint is refused (400, 403 or 404 while the page itself answered), the
  content is read block by block instead (`blocks.children.list`, every page of it, and the
  children of every block that has some) and converted here: `blocks_to_markdown`.

Rate limits: a 429 is retried after the `Retry-After` it names (at most `MAX_RETRY_AFTER_SECONDS`,
at most `RATE_LIMIT_RETRIES` times); the wait goes through the `sleep` the connector was given.
The client's own retries are switched off so that every wait is this one, bounded and visible.

Every failure is a `ConnectorError` with connector `notion`, the URL as the user gave it, and one
`kind`: `auth` (401, or no token), `not_found` (404, a 403 on the page itself, or another 4xx),
`malformed_url`, `timeout`, `rate_limited` (still 429 after the retries), `server` (5xx, no
connection, an answer that is not JSON), `too_large` (a block walk past `max_blocks`).
The token never appears in a message: details are built from status, code and the API's message,
with the token masked should a server ever echo it, and the SDK's `notion_client` logger carries
a filter that masks it too. That logger keeps the level the application gave it; left unset, it
is set to ERROR (the SDK's warnings repeat what the `ConnectorError` says).
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
from notion_client import Client
from notion_client.errors import HTTPResponseError, NotionClientErrorBase, RequestTimeoutError

from thoughtforge.config import NotionConfig
from thoughtforge.connectors.document import Document, Fetched
from thoughtforge.errors import ConnectorError

NAME = "notion"
PAGE_URL = "https://www.notion.so/{}"
"""Where a page id is opened in Notion (links to child pages use it)."""
PAGE_SIZE = 100
"""Children asked for per request: the API's maximum."""
RATE_LIMIT_RETRIES = 3
MAX_RETRY_AFTER_SECONDS = 60.0
DEFAULT_RETRY_AFTER_SECONDS = 1.0
"""The wait when a 429 names none (or one that cannot be read)."""
MAX_BLOCKS = 20_000
"""A block walk stops with `too_large` past this many blocks (Notion's own Markdown endpoint
gives up near the same number)."""
MAX_FOLLOW_UPS = 200
"""Unknown blocks fetched per page; the rest are named in `Fetched.skipped`."""

_NOTION_HOSTS = ("notion.so", "notion.site")
"""Hosts that are these domains or their subdomains (`www.notion.so`, `acme.notion.site`)."""
_OTHER_HOSTS = frozenset({"app.notion.com"})
"""Notion's own links to a page or block (`https://app.notion.com/p/<id>`)."""
_MARKDOWN_REFUSED = frozenset({400, 403, 404})

_HEX32 = re.compile(r"[0-9a-f]{32}")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_ID_AT_END = re.compile(r"(?:^|-)([0-9a-f]{32})$")
_UNKNOWN_TAG = re.compile(r"<unknown\b[^>]*?\burl=\"([^\"]*)\"[^>]*?/>")

_logger = logging.getLogger("thoughtforge.connectors.notion")
_sdk_logger = logging.getLogger("notion_client")
"""Handed to the client, so that it does not add a console handler of its own per client."""


class _MaskSecrets(logging.Filter):
    """Masks every token a connector registered, in whatever the SDK's logger is given."""

    def __init__(self) -> None:
        super().__init__()
        self._secrets: set[str] = set()
        self._lock = threading.Lock()

    def add(self, secret: str) -> None:
        with self._lock:
            self._secrets.add(secret)

    def filter(self, record: logging.LogRecord) -> bool:
        with self._lock:
            secrets = tuple(self._secrets)
        if secrets:
            message = record.getMessage()
            masked = _mask(message, secrets)
            if masked != message:
                record.msg, record.args = masked, None
        return True


_masker = _MaskSecrets()
_sdk_logger.addFilter(_masker)


def _mask(text: str, secrets: Iterable[str]) -> str:
    for secret in secrets:
        if secret:
            text = text.replace(secret, "[token]")
    return text


# --- page ids -----------------------------------------------------------------------------------


def _dashed(hex32: str) -> str:
    h = hex32.replace("-", "").lower()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _bare_id(text: str) -> str | None:
    candidate = text.strip().lower()
    if _HEX32.fullmatch(candidate) or _UUID.fullmatch(candidate):
        return _dashed(candidate)
    return None


def _split(text: str) -> Any:
    text = text.strip()
    try:
        return urlsplit(text if "://" in text else f"https://{text}")
    except ValueError:
        return None


def _is_notion_host(host: str | None) -> bool:
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
        return _dashed(found.group(1))
    return _bare_id(segment)


def page_id_from(url: str) -> str:
    """The page id (dashed UUID) behind a Notion URL or a bare id.

    `https://www.notion.so/<workspace>/<Title>-<32hex>`, `https://notion.so/<Title>-<32hex>`,
    `https://<workspace>.notion.site/<Title>-<32hex>`, `https://app.notion.com/p/<32hex>`, a bare
    32-hex id or a dashed UUID. `?p=<id>` (a page opened as a peek over another) wins over the
    path; `?v=` (a database view), other parameters and `#anchors` do not change the page.
    `ConnectorError(kind="malformed_url")` for anything else."""
    bare = _bare_id(url)
    if bare:
        return bare
    parts = _split(url)
    if parts is None or not _is_notion_host(parts.hostname):
        raise _malformed(url, "not a Notion page URL")
    for peek in parse_qs(parts.query).get("p", []):
        found = _bare_id(peek)
        if found:
            return found
    segments = [segment for segment in parts.path.split("/") if segment]
    found = _id_in_segment(segments[-1]) if segments else None
    if found:
        return found
    raise _malformed(url, "this Notion URL names no page (no 32-character page id in it)")


def _malformed(url: str, detail: str) -> ConnectorError:
    return ConnectorError(NAME, url, "malformed_url", f"could not parse URL: {detail}")


# --- the connector ------------------------------------------------------------------------------


class NotionConnector:
    """Pulls Notion pages as Markdown; see the module's docstring for how.

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
            _masker.add(self._token)

    def matches(self, url: str) -> bool:
        """A notion.so / notion.site (or app.notion.com) URL, with or without a page id in it,
        or a bare page id."""
        if _bare_id(url):
            return True
        parts = _split(url)
        return parts is not None and _is_notion_host(parts.hostname)

    def fetch(self, url: str) -> Fetched:
        """The page behind `url` as one Markdown document."""
        page_id = page_id_from(url)
        with self._session(url) as session:
            page = session.call(f"GET pages/{page_id}", lambda c: c.pages.retrieve(page_id))
            text = _Content(session, self._max_blocks).of_page(page_id)
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

    def _session(self, resource: str) -> _Session:
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
            "logger": _sdk_logger,
            # The client sets this level on its logger: keep what the application configured,
            # else only its errors (its warnings repeat what the ConnectorError says).
            "log_level": _sdk_logger.level or logging.ERROR,
        }
        if self._base_url:
            options["base_url"] = self._base_url
        return _Session(Client(**options), token, resource, self._sleep, self._config)


@dataclass(frozen=True)
class _Refusal:
    """An answer the caller asked to handle itself (`call(..., refused=...)`)."""

    status: int
    code: str


class _Session:
    """One client for one fetch or check: every call waits out rate limits, and every failure
    becomes a `ConnectorError` about `resource`."""

    def __init__(
        self,
        client: Client,
        token: str,
        resource: str,
        sleep: Callable[[float], None],
        config: NotionConfig,
    ) -> None:
        self._client = client
        self._token = token
        self.resource = resource
        self._sleep = sleep
        self._config = config

    def __enter__(self) -> _Session:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._client.close()

    def call(self, what: str, request: Callable[[Client], Any]) -> dict[str, Any]:
        """The JSON object Notion answered; `ConnectorError` for anything else."""
        answer = self.call_or_refusal(what, request, refused=frozenset())
        assert not isinstance(answer, _Refusal)
        return answer

    def call_or_refusal(
        self, what: str, request: Callable[[Client], Any], *, refused: frozenset[int]
    ) -> dict[str, Any] | _Refusal:
        """Like `call`, but an HTTP status in `refused` comes back as a `_Refusal`."""
        try:
            return self._send(what, request)
        except HTTPResponseError as exc:
            if exc.status in refused:
                _logger.info("notion: %s refused (%s %s)", what, exc.status, _code(exc))
                return _Refusal(exc.status, _code(exc))
            error = self._error(exc, what)
        except RequestTimeoutError:
            error = self._failure(
                "timeout", f"{what}: no answer within {self._config.timeout_seconds:g}s"
            )
        except httpx.HTTPError as exc:
            error = self._failure(
                "server", f"{what}: could not reach Notion ({type(exc).__name__}: {exc})"
            )
        except NotionClientErrorBase as exc:
            error = self._failure("server", f"{what}: {exc}")
        except ValueError:
            error = self._failure("server", f"{what}: Notion answered with something not JSON")
        raise error

    def _send(self, what: str, request: Callable[[Client], Any]) -> dict[str, Any]:
        for attempt in range(RATE_LIMIT_RETRIES + 1):
            _logger.debug("notion: %s", what)
            try:
                answer = request(self._client)
            except HTTPResponseError as exc:
                if exc.status != 429 or attempt == RATE_LIMIT_RETRIES:
                    raise
                wait = retry_after_seconds(exc.headers.get("retry-after"))
                _logger.info("notion: %s rate limited; waiting %gs before retrying", what, wait)
                self._sleep(wait)
                continue
            if not isinstance(answer, dict):
                raise ValueError("not a JSON object")
            return answer
        raise AssertionError("unreachable")  # pragma: no cover

    def _error(self, exc: HTTPResponseError, what: str) -> ConnectorError:
        status = exc.status
        code = _code(exc)
        said = f"{status} {code}" if code else f"HTTP {status}"
        message = " ".join(str(exc).split())[:300]
        if message:
            said = f"{said}: {message}"
        if status == 401:
            return self._failure(
                "auth", f"Notion refused the token ({said}); check connectors.notion.token", status
            )
        if status == 403:
            return self._failure(
                "not_found",
                f"the integration has no access to it ({said}); share the page with it",
                status,
            )
        if status == 404:
            return self._failure(
                "not_found", f"not found, or not shared with the integration ({said})", status
            )
        if status == 429:
            return self._failure(
                "rate_limited",
                f"still rate limited after {RATE_LIMIT_RETRIES} retries ({said})",
                status,
            )
        if status >= 500:
            return self._failure("server", f"{what}: Notion failed ({said})", status)
        return self._failure("not_found", f"{what}: Notion refused the request ({said})", status)

    def _failure(self, kind: str, detail: str, status: int | None = None) -> ConnectorError:
        return ConnectorError(NAME, self.resource, kind, _mask(detail, [self._token]), status)


def _code(exc: HTTPResponseError) -> str:
    code = getattr(exc.code, "value", exc.code)
    return "" if code == "notionhq_client_response_error" else str(code)


def retry_after_seconds(value: str | None) -> float:
    """A `Retry-After` header (seconds, or an HTTP date) as the seconds to wait, within
    0..`MAX_RETRY_AFTER_SECONDS`; `DEFAULT_RETRY_AFTER_SECONDS` when absent or unreadable."""
    if not value:
        return DEFAULT_RETRY_AFTER_SECONDS
    try:
        seconds = float(value.strip())
    except ValueError:
        try:
            seconds = parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError):
            return DEFAULT_RETRY_AFTER_SECONDS
    if seconds != seconds:  # NaN
        return DEFAULT_RETRY_AFTER_SECONDS
    return min(max(seconds, 0.0), MAX_RETRY_AFTER_SECONDS)


def page_title(page: dict[str, Any]) -> str:
    """The plain text of the page's `title` property (whatever its name), or `Untitled`."""
    for prop in (page.get("properties") or {}).values():
        if isinstance(prop, dict) and prop.get("type") == "title":
            title = "".join(_plain(item) for item in prop.get("title") or [])
            return " ".join(title.split()) or "Untitled"
    return "Untitled"


# --- content ------------------------------------------------------------------------------------


@dataclass
class _Text:
    markdown: str
    skipped: list[str] = field(default_factory=list)


class _Content:
    """The Markdown of one page: the Markdown endpoint with its unknown blocks followed, or the
    block walk when that endpoint is refused."""

    def __init__(self, session: _Session, max_blocks: int) -> None:
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
            _logger.info("notion: reading page %s block by block", page_id)
            markdown = self._walk(page_id)
        for kind, count in sorted(self._unconverted.items()):
            self._skipped.append(f"{count} block(s) of type '{kind}': no Markdown for them")
        text = markdown.strip("\n")
        return _Text(f"{text}\n" if text else "", self._skipped)

    def _markdown(self, block_id: str) -> str | None:
        """The Markdown endpoint's text for a page, unknown blocks followed; `None` when the
        endpoint is refused."""
        answer = self._ask_markdown(block_id)
        return None if isinstance(answer, _Refusal) else self._follow(block_id, answer)

    def _ask_markdown(self, block_id: str) -> dict[str, Any] | _Refusal:
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
        if isinstance(answer, _Refusal) and answer.status == 404:
            self._skipped.append(f"block {block_id}: not shared with the integration (404)")
            return None
        if isinstance(answer, _Refusal) or block_id in _unknown_ids(answer):
            # No Markdown for this block (for its type, or from this endpoint): convert it here.
            block = self._session.call_or_refusal(
                f"GET blocks/{block_id}",
                lambda c: c.blocks.retrieve(block_id),
                refused=frozenset({403, 404}),
            )
            if isinstance(block, _Refusal):
                self._skipped.append(f"block {block_id}: no access to it ({block.status})")
                return None
            self._load_children(block)
            return _render([block], self._unconverted)
        return self._follow(block_id, answer)

    def _walk(self, block_id: str) -> str:
        return _render(self._children(block_id), self._unconverted)

    def _children(self, block_id: str) -> list[dict[str, Any]]:
        """Every child of a block, every page of them, each with its own `children` loaded."""
        children: list[dict[str, Any]] = []
        cursor: str | None = None
        while True:
            query: dict[str, Any] = {"page_size": PAGE_SIZE}
            if cursor:
                query["start_cursor"] = cursor
            answer = self._session.call(
                f"GET blocks/{block_id}/children",
                lambda c, query=query: c.blocks.children.list(block_id=block_id, **query),
            )
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
    return [_dashed(str(i)) for i in ids if _bare_id(str(i))]


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
    parts = _split(url.replace("&amp;", "&"))
    if parts is None:
        return None
    fragment = parts.fragment.lower().replace("-", "")
    if _HEX32.fullmatch(fragment):
        return fragment
    ids = _HEX32.findall(url.lower().replace("-", ""))
    return ids[-1] if ids else None


# --- blocks to Markdown -------------------------------------------------------------------------

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
    return _render(blocks, Counter())


def _render(blocks: list[dict[str, Any]], unconverted: Counter[str]) -> str:
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
    data = block.get(kind) if isinstance(block.get(kind), dict) else {}
    children: list[dict[str, Any]] = block.get("children") or []
    if kind == "table":
        return _table(data, children)
    inner = _render(children, unconverted) if children else ""
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
        return f"![{_label(_plain_all(data.get('caption')))}]({url})" if url else None
    if kind in _FILE_KINDS:
        url = _file_url(data)
        label = data.get("name") or _plain_all(data.get("caption")) or kind
        return f"[{_label(str(label))}]({url})" if url else None
    if kind in _LINK_KINDS:
        url = str(data.get("url") or "")
        return f"[{_label(_plain_all(data.get('caption')) or url)}]({url})" if url else None
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
    source = "".join(_plain(item) for item in data.get("rich_text") or [])
    language = str(data.get("language") or "")
    language = "" if language == "plain text" else language
    fence = "```"
    while fence in source:
        fence += "`"
    caption = _plain_all(data.get("caption"))
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


def _plain(item: dict[str, Any]) -> str:
    if not isinstance(item, dict):
        return ""
    if "plain_text" in item:
        return str(item.get("plain_text") or "")
    return str((item.get("text") or {}).get("content") or "")


def _plain_all(items: Any) -> str:
    return "".join(_plain(item) for item in items or []).strip()


def rich_text_to_markdown(items: list[dict[str, Any]]) -> str:
    """Notion rich text as inline Markdown: `code`, ~~strikethrough~~, *italic*, **bold**
    and [links](url) (a link's or mention's `href`); inline equations as `$...$`."""
    return "".join(_segment(item) for item in items if isinstance(item, dict))


def _segment(item: dict[str, Any]) -> str:
    if item.get("type") == "equation":
        text = f"${(item.get('equation') or {}).get('expression', '')}$"
    else:
        text = _plain(item)
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
