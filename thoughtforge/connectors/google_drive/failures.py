"""Why a Drive file gives no document: a call that failed, or a file with no text to pull."""

from __future__ import annotations


class Failure(Exception):
    """A failure of one call, before it is tied to the resource the caller asked for."""

    def __init__(self, kind: str, detail: str, status: int | None = None) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.status = status


class Skip(Exception):
    """A file with no text to pull: why, as one entry of `Fetched.skipped`."""
