"""What a connector hands back: documents as Markdown, before they are written to `resources/`."""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel


class Document(BaseModel):
    """One pulled source: `text` is Markdown (a sheet's CSV or a slide deck's text inside it)."""

    title: str
    source_url: str
    text: str


class Fetched(BaseModel):
    """What one URL gave: its documents, and what was left out with why (a folder's file over
    the export limit, or of a type no export exists for)."""

    documents: list[Document] = []
    skipped: list[str] = []


class Connector(Protocol):
    """A source of documents. `fetch` raises `errors.ConnectorError`, one `kind` per failure:
    `auth`, `not_found` (or no access), `malformed_url`, `timeout`, `rate_limited`, `server`,
    `too_large`. A folder returns what it could and names the rest in `Fetched.skipped`."""

    name: str

    def matches(self, url: str) -> bool:
        """Whether `url` (or bare id) is this connector's to pull."""
        ...

    def fetch(self, url: str) -> Fetched:
        """The documents behind `url`: one for a page or file, several for a folder."""
        ...

    def check(self) -> str:
        """Whether the credentials work, as one line for `doctor`; `ConnectorError` if not."""
        ...
