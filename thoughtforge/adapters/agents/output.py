"""What every agent CLI's output reader shares: the ways an output fails (not the promised form,
an API error in the CLI's words, a refusal of the step's tools) and the pieces of JSON reading
they all do. Each CLI's own reader is in its kind module (`kinds`); `kinds.normalise` reads an
output by its form.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from thoughtforge.bounded_input import JsonTooDeep, parse_json


class AgentOutputError(ValueError):
    """The output is not in the form the agent's `output` setting promises."""


class CliApiError(AgentOutputError):
    """The CLI reached its model API and the API refused the request (its words kept)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status

    @property
    def login_refused(self) -> bool:
        return self.status in (401, 403)


class CliRefusal(AgentOutputError):
    """The CLI refused tools the step needs: a permission, sandbox or policy denial; `fix`
    when the CLI's own rule says what helps."""

    def __init__(self, message: str, fix: str = "") -> None:
        super().__init__(message)
        self.fix = fix


def plain_text(stdout: str, stderr: str, writes: bool) -> str:
    """A command with no structured output: what it printed is the reply."""
    return stdout.strip()


def json_object(text: str, what: str) -> dict[str, Any]:
    """`text` as one JSON object (`AgentOutputError` naming `what` printed it, if it is not)."""
    try:
        payload = parse_json(text, f"{what} output")
    except JsonTooDeep as exc:
        raise AgentOutputError(f"expected {what} JSON, got output that {exc.reason}") from None
    except ValueError as exc:
        raise AgentOutputError(f"expected {what} JSON, got unparsable output ({exc})") from None
    if not isinstance(payload, dict):
        raise AgentOutputError(f"expected a {what} JSON object")
    return payload


def event(line: str) -> dict[str, Any]:
    """One line of a JSON-lines stream as an object; `{}` when it is none."""
    try:
        found = parse_json(line, "an event")
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def events(text: str) -> list[dict[str, Any]]:
    """Every JSON object line of a JSON-lines stream."""
    return [event(line) for line in text.splitlines() if line.strip().startswith("{")]


def status(value: Any) -> int | None:
    """An HTTP status a CLI names (a number, or its digits)."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def api_words(message: Any) -> str:
    """An API's own error message, out of the JSON body a CLI may quote whole."""
    text = str(message or "no message")
    try:
        body = parse_json(text, "an API error")
    except ValueError:
        return one_line(text)
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict) and error.get("message"):
        code = error.get("code") or error.get("status") or ""
        return one_line(f"{code} {error['message']}".strip())
    return one_line(text)


def one_line(text: str) -> str:
    return " ".join(text.split())[:300]


_TIMES = {1: "once", 2: "twice"}


def retried(count: int, cause: str) -> str:
    """What a CLI's own retries come to, for the person: "the agent retried twice after 429
    Too Many Requests"."""
    return f"the agent retried {_TIMES.get(count, f'{count} times')} after {cause}"


def status_words(code: Any, fallback: str = "") -> str:
    """`429 Too Many Requests` for a status a CLI names (its own words when it is none)."""
    number = status(code)
    try:
        return f"{number} {HTTPStatus(number).phrase}" if number else fallback
    except ValueError:
        return f"{number} {fallback}".strip()


def refused(what: str, by: str) -> str:
    """A tool call or command the CLI refused, for the person, its text quoted inert."""
    shown = one_line(what)[:120].replace("`", "'")
    return f"the agent's `{shown}` was refused by {by}"


def causes(seen: list[str]) -> list[tuple[str, int]]:
    """Each retry cause and how many retries it had, in the order first met."""
    counted: dict[str, int] = {}
    for cause in seen:
        counted[cause] = counted.get(cause, 0) + 1
    return list(counted.items())
