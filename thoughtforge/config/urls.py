"""The URLs a section may hold (channels, boards, endpoints), checked at start-up."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlsplit

from pydantic import AfterValidator
from pydantic_core import PydanticCustomError


def _http_url(value: str) -> str:
    """A channel or board URL is checked at start-up, not at the first transition. One with a
    user or password in it is refused: the URL is shown in logs and by `doctor`, so a secret
    belongs in the channel's `token`, which never is."""
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise PydanticCustomError("http_url", "an http(s) URL with a host, like https://host:port")
    if "@" in parts.netloc:
        raise PydanticCustomError(
            "http_url",
            "an http(s) URL without a user or password in it (put the secret in `token`)",
        )
    try:
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        raise PydanticCustomError("http_url", "an http(s) URL whose port is a number") from None
    return value.rstrip("/")


HttpUrl = Annotated[str, AfterValidator(_http_url)]
