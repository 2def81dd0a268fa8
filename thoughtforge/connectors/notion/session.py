"""One Notion client for one fetch or check: every call waits out rate limits, and every failure
becomes a `ConnectorError`.

A 429 is retried after the `Retry-After` it names (at most `MAX_RETRY_AFTER_SECONDS`, at most
`RATE_LIMIT_RETRIES` times); the wait goes through the `sleep` the connector was given. The
client's own retries are switched off so that every wait is this one, bounded and visible."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

import httpx
from notion_client import Client
from notion_client.errors import HTTPResponseError, NotionClientErrorBase, RequestTimeoutError

from thoughtforge.config import NotionConfig
from thoughtforge.connectors.notion.errors import NAME, mask
from thoughtforge.errors import ConnectorError

RATE_LIMIT_RETRIES = 3
MAX_RETRY_AFTER_SECONDS = 60.0
DEFAULT_RETRY_AFTER_SECONDS = 1.0
"""The wait when a 429 names none (or one that cannot be read)."""

logger = logging.getLogger("thoughtforge.connectors.notion")


@dataclass(frozen=True)
class Refusal:
    """An answer the caller asked to handle itself (`call(..., refused=...)`)."""

    status: int
    code: str


class Session:
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

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._client.close()

    def call(self, what: str, request: Callable[[Client], Any]) -> dict[str, Any]:
        """The JSON object Notion answered; `ConnectorError` for anything else."""
        answer = self.call_or_refusal(what, request, refused=frozenset())
        assert not isinstance(answer, Refusal)
        return answer

    def call_or_refusal(
        self, what: str, request: Callable[[Client], Any], *, refused: frozenset[int]
    ) -> dict[str, Any] | Refusal:
        """Like `call`, but an HTTP status in `refused` comes back as a `Refusal`."""
        try:
            return self._send(what, request)
        except HTTPResponseError as exc:
            if exc.status in refused:
                logger.info("notion: %s refused (%s %s)", what, exc.status, _code(exc))
                return Refusal(exc.status, _code(exc))
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
            logger.debug("notion: %s", what)
            try:
                answer = request(self._client)
            except HTTPResponseError as exc:
                if exc.status != 429 or attempt == RATE_LIMIT_RETRIES:
                    raise
                wait = retry_after_seconds(exc.headers.get("retry-after"))
                logger.info("notion: %s rate limited; waiting %gs before retrying", what, wait)
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
        return ConnectorError(NAME, self.resource, kind, mask(detail, [self._token]), status)


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
