"""A local stand-in for the Notion API, on 127.0.0.1 over real HTTP, for the connector's tests.

It answers the endpoints the connector uses with the shapes of the API reference
(developers.notion.com/reference): `GET /v1/users/me` (the token's bot user), `GET /v1/pages/{id}`
(a page object whose `title` property holds the title), `GET /v1/pages/{id}/markdown` (a
`page_markdown` object: `markdown`, `truncated`, `unknown_block_ids`; it takes a block id too),
`GET /v1/blocks/{id}` and `GET /v1/blocks/{id}/children?start_cursor=&page_size=` (a paginated
`list` of block objects: `has_more`, `next_cursor`, which is the id of the next block).

Like the real API it wants `Authorization: Bearer <token>` (else 401 `unauthorized`) and a
`Notion-Version` header (else 400 `missing_version`), and answers errors as
`{"object": "error", "status": ..., "code": ..., "message": ..., "request_id": ...}`.

    with FakeNotion() as notion:
        page = notion.add_page("My page", blocks=[paragraph("Hello")], markdown="Hello")
        notion.fail("pages.markdown", 403)                 # every time, from now on
        notion.fail("pages.retrieve", 429, times=1, retry_after="2")
        connector = NotionConnector(NotionConfig(token=notion.token, base_url=notion.url))

Blocks are built with `block()` or the helpers below (`paragraph`, `heading`, `bulleted`, ...);
`children=[...]` nests them. `page_limit` makes every children list page hold at most that many
blocks (the API "may contain fewer than page_size results"), so pagination needs no 100 blocks.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from email.message import Message
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.local_http import LocalHttpServer

TOKEN = "ntn_fake_notion_token_0123456789abcdef"
TIMESTAMP = "2025-06-01T12:00:00.000Z"
USER_ID = "5389a034-eb5c-47b5-8a9e-f79c99ef166c"
BOT_ID = "16d84278-ab0e-484c-9bdd-b35da3bd8905"
ENDPOINTS = ("users.me", "pages.retrieve", "pages.markdown", "blocks.retrieve", "blocks.children")
_ROUTES = (
    (re.compile(r"^/v1/users/me$"), "users.me"),
    (re.compile(r"^/v1/pages/([^/]+)$"), "pages.retrieve"),
    (re.compile(r"^/v1/pages/([^/]+)/markdown$"), "pages.markdown"),
    (re.compile(r"^/v1/blocks/([^/]+)$"), "blocks.retrieve"),
    (re.compile(r"^/v1/blocks/([^/]+)/children$"), "blocks.children"),
)
_VERSION = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_HEX32 = re.compile(r"[0-9a-f]{32}")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")

_DEFAULT_CODES = {
    400: "invalid_request",
    401: "unauthorized",
    403: "restricted_resource",
    404: "object_not_found",
    409: "conflict_error",
    429: "rate_limited",
    500: "internal_server_error",
    503: "service_unavailable",
    504: "gateway_timeout",
}
_DEFAULT_MESSAGES = {
    "invalid_request": "Unsupported request: {endpoint}.",
    "unauthorized": "API token is invalid.",
    "restricted_resource": "Insufficient permissions for this endpoint.",
    "object_not_found": (
        "Could not find {what} with ID: {id}. Make sure the relevant pages and databases are "
        "shared with your integration."
    ),
    "rate_limited": "You have been rate limited. Please try again in a few minutes.",
    "internal_server_error": "Unexpected error occurred.",
    "service_unavailable": "Notion is unavailable, try again later.",
    "gateway_timeout": "Notion timed out while completing this request. Please try again later.",
    "conflict_error": "Conflict occurred while saving. Please try again.",
}


def dashed(any_id: str) -> str:
    """A Notion id (32 hex digits, dashed or not) as the API writes it: a dashed UUID."""
    h = any_id.replace("-", "").lower()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _valid_id(text: str) -> bool:
    return bool(_HEX32.fullmatch(text.lower()) or _UUID.fullmatch(text.lower()))


# --- building blocks ----------------------------------------------------------------------------


def text(
    content: str,
    *,
    bold: bool = False,
    italic: bool = False,
    strikethrough: bool = False,
    underline: bool = False,
    code: bool = False,
    link: str | None = None,
) -> dict[str, Any]:
    """A rich text object of type `text`."""
    return {
        "type": "text",
        "text": {"content": content, "link": {"url": link} if link else None},
        "annotations": {
            "bold": bold,
            "italic": italic,
            "strikethrough": strikethrough,
            "underline": underline,
            "code": code,
            "color": "default",
        },
        "plain_text": content,
        "href": link,
    }


def mention_page(title: str, page_id: str) -> dict[str, Any]:
    """A rich text mention of a page, as the API sends it (plain text and href)."""
    item = text(title)
    item.update(
        type="mention",
        mention={"type": "page", "page": {"id": dashed(page_id)}},
        href=f"https://www.notion.so/{page_id.replace('-', '')}",
    )
    del item["text"]
    return item


def equation_inline(expression: str) -> dict[str, Any]:
    item = text(expression)
    item.update(type="equation", equation={"expression": expression})
    del item["text"]
    return item


def _rich(parts: Iterable[str | dict[str, Any]]) -> list[dict[str, Any]]:
    return [text(part) if isinstance(part, str) else part for part in parts]


def block(
    kind: str, payload: dict[str, Any] | None = None, *, children: Iterable[Any] = ()
) -> dict[str, Any]:
    """A block to give `add_page` / `add_blocks`: its type, the type's payload, its children."""
    return {"type": kind, kind: payload or {}, "children": list(children)}


def _text_block(
    kind: str, parts: Iterable[Any], children: Iterable[Any] = (), **extra: Any
) -> dict[str, Any]:
    return block(kind, {"rich_text": _rich(parts), "color": "default", **extra}, children=children)


def paragraph(*parts: str | dict[str, Any], children: Iterable[Any] = ()) -> dict[str, Any]:
    return _text_block("paragraph", parts, children)


def heading(
    level: int, *parts: str | dict[str, Any], children: Iterable[Any] = ()
) -> dict[str, Any]:
    children = list(children)
    return _text_block(f"heading_{level}", parts, children, is_toggleable=bool(children))


def bulleted(*parts: str | dict[str, Any], children: Iterable[Any] = ()) -> dict[str, Any]:
    return _text_block("bulleted_list_item", parts, children)


def numbered(*parts: str | dict[str, Any], children: Iterable[Any] = ()) -> dict[str, Any]:
    return _text_block("numbered_list_item", parts, children)


def to_do(
    *parts: str | dict[str, Any], checked: bool = False, children: Iterable[Any] = ()
) -> dict[str, Any]:
    return _text_block("to_do", parts, children, checked=checked)


def toggle(*parts: str | dict[str, Any], children: Iterable[Any] = ()) -> dict[str, Any]:
    return _text_block("toggle", parts, children)


def quote(*parts: str | dict[str, Any], children: Iterable[Any] = ()) -> dict[str, Any]:
    return _text_block("quote", parts, children)


def callout(
    *parts: str | dict[str, Any], emoji: str = "💡", children: Iterable[Any] = ()
) -> dict[str, Any]:
    icon = {"type": "emoji", "emoji": emoji}
    return _text_block("callout", parts, children, icon=icon)


def code(source: str, language: str = "plain text", caption: str = "") -> dict[str, Any]:
    payload = {"rich_text": _rich([source]), "language": language, "caption": _rich([caption])}
    if not caption:
        payload["caption"] = []
    return block("code", payload)


def divider() -> dict[str, Any]:
    return block("divider")


def equation(expression: str) -> dict[str, Any]:
    return block("equation", {"expression": expression})


def table(rows: list[list[str | list[dict[str, Any]]]], *, header: bool = True) -> dict[str, Any]:
    """A table and its `table_row` children; a cell is a string or a list of rich text."""
    row_blocks = [
        block("table_row", {"cells": [_rich([c]) if isinstance(c, str) else c for c in row]})
        for row in rows
    ]
    payload = {
        "table_width": max(len(row) for row in rows),
        "has_column_header": header,
        "has_row_header": False,
    }
    return block("table", payload, children=row_blocks)


def child_page(title: str, page_id: str | None = None) -> dict[str, Any]:
    spec = block("child_page", {"title": title})
    if page_id:
        spec["id"] = dashed(page_id)
    return spec


def image(url: str, caption: str = "", *, hosted: bool = False) -> dict[str, Any]:
    kind = "file" if hosted else "external"
    where = {"url": url, "expiry_time": TIMESTAMP} if hosted else {"url": url}
    return block(
        "image", {"type": kind, kind: where, "caption": _rich([caption] if caption else [])}
    )


def file(url: str, name: str = "", caption: str = "") -> dict[str, Any]:
    payload = {
        "type": "file",
        "file": {"url": url, "expiry_time": TIMESTAMP},
        "caption": _rich([caption] if caption else []),
        "name": name,
    }
    return block("file", payload)


def bookmark(url: str, caption: str = "") -> dict[str, Any]:
    return block("bookmark", {"url": url, "caption": _rich([caption] if caption else [])})


# --- the server ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Served:
    """One request the server answered."""

    method: str
    path: str
    """The path without the query string."""
    query: dict[str, list[str]]
    headers: Message
    endpoint: str | None
    target: str | None
    """The id in the path (dashed), if any."""
    status: int


@dataclass
class _Failure:
    endpoint: str
    status: int
    code: str | None
    message: str | None
    times: int | None
    retry_after: str | None
    target: str | None
    body: str | None
    delay: float


@dataclass
class _Page:
    title: str
    properties: dict[str, Any]
    url: str


@dataclass
class _State:
    pages: dict[str, _Page] = field(default_factory=dict)
    blocks: dict[str, dict[str, Any]] = field(default_factory=dict)
    children: dict[str, list[str]] = field(default_factory=dict)
    markdown: dict[str, dict[str, Any]] = field(default_factory=dict)


class FakeNotion(LocalHttpServer):
    """The Notion API for one test: pages, blocks, Markdown and failures set up by the test.
    Its `url` is the client's `base_url` (the client adds `/v1/`)."""

    def __init__(
        self,
        *,
        token: str = TOKEN,
        bot_name: str = "ThoughtForge test",
        workspace_name: str | None = "Test workspace",
        page_limit: int = 100,
    ) -> None:
        self.token = token
        self.bot_name = bot_name
        self.workspace_name = workspace_name
        self.page_limit = page_limit
        self.served: list[Served] = []
        self._state = _State()
        self._failures: list[_Failure] = []
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        super().__init__(_handler_for(self))

    # -- setting up --

    def new_id(self) -> str:
        """A fresh id (dashed), stable across runs: pages and blocks are numbered."""
        return str(uuid.UUID(int=0x1F2E3D4C5B6A0000 << 64 | next(self._ids)))

    def add_page(
        self,
        title: str,
        *,
        blocks: Iterable[dict[str, Any]] = (),
        markdown: str | None = None,
        truncated: bool = False,
        unknown_block_ids: Iterable[str] = (),
        page_id: str | None = None,
        title_property: str = "title",
        properties: dict[str, Any] | None = None,
    ) -> str:
        """A page (its id, dashed) with its blocks and, when given, the Markdown the Markdown
        endpoint answers for it. `title_property` names the title property as a database
        would (`Name`); `properties` adds others."""
        page_id = dashed(page_id) if page_id else self.new_id()
        title_value = {"id": "title", "type": "title", "title": _rich([title] if title else [])}
        props = {title_property: title_value, **(properties or {})}
        slug = "-".join(re.findall(r"[A-Za-z0-9]+", title))
        url = f"https://www.notion.so/{slug + '-' if slug else ''}{page_id.replace('-', '')}"
        with self._lock:
            self._state.pages[page_id] = _Page(title, props, url)
            self._state.children.setdefault(page_id, [])
        self.add_blocks(page_id, blocks)
        if markdown is not None:
            self.set_markdown(
                page_id, markdown, truncated=truncated, unknown_block_ids=unknown_block_ids
            )
        return page_id

    def add_blocks(self, parent_id: str, blocks: Iterable[dict[str, Any]]) -> list[str]:
        """Appends blocks (and their children, recursively) under a page or block; their ids."""
        parent_id = dashed(parent_id)
        ids = []
        for spec in blocks:
            spec = dict(spec)
            children = spec.pop("children", [])
            block_id = dashed(spec.pop("id")) if "id" in spec else self.new_id()
            parent_type = "page_id" if parent_id in self._state.pages else "block_id"
            obj = {
                "object": "block",
                "id": block_id,
                "parent": {"type": parent_type, parent_type: parent_id},
                "created_time": TIMESTAMP,
                "last_edited_time": TIMESTAMP,
                "created_by": {"object": "user", "id": USER_ID},
                "last_edited_by": {"object": "user", "id": USER_ID},
                "has_children": bool(children) or spec["type"] == "child_page",
                "archived": False,
                "in_trash": False,
                **spec,
            }
            with self._lock:
                self._state.blocks[block_id] = obj
                self._state.children.setdefault(parent_id, []).append(block_id)
                self._state.children.setdefault(block_id, [])
            self.add_blocks(block_id, children)
            ids.append(block_id)
        return ids

    def set_markdown(
        self,
        target_id: str,
        markdown: str,
        *,
        truncated: bool = False,
        unknown_block_ids: Iterable[str] = (),
    ) -> None:
        """What `GET /v1/pages/{target_id}/markdown` answers (a page's or a block's id)."""
        with self._lock:
            self._state.markdown[dashed(target_id)] = {
                "markdown": markdown,
                "truncated": truncated,
                "unknown_block_ids": [dashed(i) for i in unknown_block_ids],
            }

    def fail(
        self,
        endpoint: str,
        status: int,
        *,
        code: str | None = None,
        message: str | None = None,
        times: int | None = None,
        retry_after: str | None = None,
        target: str | None = None,
        body: str | None = None,
        delay: float = 0,
    ) -> None:
        """Answer `endpoint` (one of `ENDPOINTS`; for `target` only, when given) with an error:
        `status`, its usual `code` and message unless given, `Retry-After` when given. `times`
        limits how often (default: always); `body` replaces the JSON error body (a proxy's
        HTML page); `delay` holds the answer back that many seconds (closing the server
        releases it)."""
        if endpoint not in ENDPOINTS:
            raise ValueError(f"unknown endpoint {endpoint!r}; one of {ENDPOINTS}")
        with self._lock:
            self._failures.append(
                _Failure(
                    endpoint,
                    status,
                    code,
                    message,
                    times,
                    retry_after,
                    dashed(target) if target else None,
                    body,
                    delay,
                )
            )

    def requests_to(self, endpoint: str) -> list[Served]:
        return [served for served in self.served if served.endpoint == endpoint]

    # -- lifecycle --

    # -- answering --

    def answer(
        self, method: str, raw_path: str, headers: Message
    ) -> tuple[int, dict[str, str], bytes]:
        parts = urlsplit(raw_path)
        query = parse_qs(parts.query, keep_blank_values=True)
        endpoint, target = None, None
        for pattern, name in _ROUTES:
            found = pattern.match(parts.path)
            if found:
                endpoint = name
                target = found.group(1) if found.groups() else None
                break
        status, extra, body = self._answer(method, endpoint, target, query, headers)
        with self._lock:
            self.served.append(
                Served(
                    method,
                    parts.path,
                    query,
                    headers,
                    endpoint,
                    dashed(target) if target and _valid_id(target) else target,
                    status,
                )
            )
        payload = body if isinstance(body, bytes) else json.dumps(body).encode()
        return status, extra, payload

    def _answer(
        self,
        method: str,
        endpoint: str | None,
        target: str | None,
        query: dict[str, list[str]],
        headers: Message,
    ) -> tuple[int, dict[str, str], Any]:
        version = headers.get("Notion-Version")
        if not version:
            return _error(
                400,
                "missing_version",
                "Notion-Version header failed validation: Notion-Version header should be "
                "defined, instead was `undefined`.",
            )
        if not _VERSION.match(version):
            return _error(
                400,
                "validation_error",
                f"Notion-Version header failed validation: `{version}` is not a valid version.",
            )
        if headers.get("Authorization") != f"Bearer {self.token}":
            return _error(401, "unauthorized", _DEFAULT_MESSAGES["unauthorized"])
        if endpoint is None or method != "GET":
            return _error(400, "invalid_request_url", "Invalid request URL.")
        if target is not None and not _valid_id(target):
            return _error(
                400,
                "validation_error",
                f"path failed validation: path.id should be a valid uuid, instead was "
                f'`"{target}"`.',
            )
        target = dashed(target) if target else None
        failure = self._failure(endpoint, target)
        if failure is not None:
            return self._failed(failure, endpoint, target)
        with self._lock:
            return self._serve(endpoint, target, query)

    def _failure(self, endpoint: str, target: str | None) -> _Failure | None:
        with self._lock:
            for failure in self._failures:
                if failure.endpoint != endpoint:
                    continue
                if failure.target is not None and failure.target != target:
                    continue
                if failure.times is not None:
                    failure.times -= 1
                    if failure.times <= 0:
                        self._failures.remove(failure)
                return failure
        return None

    def _failed(
        self, failure: _Failure, endpoint: str, target: str | None
    ) -> tuple[int, dict[str, str], Any]:
        if failure.delay:
            self._released.wait(failure.delay)
        extra = {"Retry-After": failure.retry_after} if failure.retry_after is not None else {}
        if failure.body is not None:
            return failure.status, {**extra, "Content-Type": "text/html"}, failure.body.encode()
        code = failure.code or _DEFAULT_CODES.get(failure.status, "internal_server_error")
        what = "block" if endpoint.startswith("blocks") else "page"
        message = failure.message or _DEFAULT_MESSAGES.get(code, "Error.").format(
            endpoint=endpoint, what=what, id=target or ""
        )
        status, headers, body = _error(failure.status, code, message)
        return status, {**headers, **extra}, body

    def _serve(
        self, endpoint: str, target: str | None, query: dict[str, list[str]]
    ) -> tuple[int, dict[str, str], Any]:
        state = self._state
        if endpoint == "users.me":
            bot: dict[str, Any] = {"owner": {"type": "workspace", "workspace": True}}
            if self.workspace_name:
                bot["workspace_name"] = self.workspace_name
            return _ok(
                {
                    "object": "user",
                    "id": BOT_ID,
                    "name": self.bot_name,
                    "avatar_url": None,
                    "type": "bot",
                    "bot": bot,
                }
            )
        assert target is not None
        if endpoint == "pages.retrieve":
            page = state.pages.get(target)
            if page is None:
                return _not_found("page", target)
            return _ok(
                {
                    "object": "page",
                    "id": target,
                    "created_time": TIMESTAMP,
                    "last_edited_time": TIMESTAMP,
                    "created_by": {"object": "user", "id": USER_ID},
                    "last_edited_by": {"object": "user", "id": USER_ID},
                    "cover": None,
                    "icon": None,
                    "parent": {"type": "workspace", "workspace": True},
                    "archived": False,
                    "in_trash": False,
                    "is_locked": False,
                    "properties": page.properties,
                    "url": page.url,
                    "public_url": None,
                }
            )
        if endpoint == "pages.markdown":
            if target not in state.pages and target not in state.blocks:
                return _not_found("page", target)
            markdown = state.markdown.get(
                target, {"markdown": "", "truncated": False, "unknown_block_ids": []}
            )
            return _ok({"object": "page_markdown", "id": target, **markdown})
        if endpoint == "blocks.retrieve":
            found = state.blocks.get(target)
            return _ok(found) if found else _not_found("block", target)
        return self._children(target, query)

    def _children(
        self, target: str, query: dict[str, list[str]]
    ) -> tuple[int, dict[str, str], Any]:
        state = self._state
        if target not in state.pages and target not in state.blocks:
            return _not_found("block", target)
        raw_size = (query.get("page_size") or ["100"])[0]
        if not raw_size.isdigit() or not 1 <= int(raw_size) <= 100:
            return _error(
                400,
                "validation_error",
                f"page_size should be a number between 1 and 100, instead was `{raw_size}`.",
            )
        size = min(int(raw_size), self.page_limit)
        ids = state.children.get(target, [])
        start = 0
        cursor = (query.get("start_cursor") or [""])[0]
        if cursor:
            if not _valid_id(cursor) or dashed(cursor) not in ids:
                return _error(
                    400, "validation_error", "start_cursor provided is invalid: " + cursor
                )
            start = ids.index(dashed(cursor))
        window = ids[start : start + size]
        more = start + size < len(ids)
        return _ok(
            {
                "object": "list",
                "results": [state.blocks[i] for i in window],
                "next_cursor": ids[start + size] if more else None,
                "has_more": more,
                "type": "block",
                "block": {},
            }
        )


def _request_id() -> str:
    return str(uuid.uuid4())


def _ok(body: dict[str, Any]) -> tuple[int, dict[str, str], Any]:
    return 200, {"Content-Type": "application/json"}, {**body, "request_id": _request_id()}


def _error(status: int, code: str, message: str) -> tuple[int, dict[str, str], Any]:
    body = {
        "object": "error",
        "status": status,
        "code": code,
        "message": message,
        "request_id": _request_id(),
    }
    return status, {"Content-Type": "application/json"}, body


def _not_found(what: str, target: str) -> tuple[int, dict[str, str], Any]:
    message = _DEFAULT_MESSAGES["object_not_found"].format(what=what, id=target)
    return _error(404, "object_not_found", message)


def _handler_for(server: FakeNotion) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out at once, as from a real server

        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                self.rfile.read(length)
            status, headers, body = server.answer(self.command, self.path, self.headers)
            try:
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except OSError:
                pass  # the client gave up first (a timeout test)

        do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = _handle

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the tests read `served`."""

    return Handler
