"""Turn each agent CLI's output into the plain text of its answer, what the call used, and why it
failed when it did.

Claude Code (`--output-format json`, or the same object as the last of `stream-json`'s events)
prints one object: the answer in `result`, `is_error` with the
API's own words, `permission_denials` for every tool it was refused, usage and cost. Codex
(`exec --json`) prints one event a line: `agent_message` items, `turn.completed` usage,
`turn.failed` errors; the sandbox's refusals go to stderr. Gemini CLI (`-o json`) prints one
object with `response` and `stats.models.*.tokens`, or an `error` object (on stderr). A refusal
matters only on a step that was granted writes (`writes`): the agent then could not do the work
its answer may claim it did.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from thoughtforge.adapters.agents.call_usage import from_claude, from_codex, from_gemini, report
from thoughtforge.adapters.agents.process import StopReading
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


GEMINI_BUILD_FILES = (
    "Gemini CLI never writes build files (pyproject.toml, package.json, Makefile, Cargo.toml, "
    "go.mod…) headless, whatever it is granted: add the file to the project folder yourself, "
    "then resume, or build code projects with another agent"
)


ReadOutput = Callable[[str, str, bool], str]
"""Given stdout, stderr and whether the step may write: the answer."""


def _plain_text(stdout: str, stderr: str, writes: bool) -> str:
    return stdout.strip()


def _json_object(text: str, what: str) -> dict[str, Any]:
    try:
        payload = parse_json(text, f"{what} output")
    except JsonTooDeep as exc:
        raise AgentOutputError(f"expected {what} JSON, got output that {exc.reason}") from None
    except ValueError as exc:
        raise AgentOutputError(f"expected {what} JSON, got unparsable output ({exc})") from None
    if not isinstance(payload, dict):
        raise AgentOutputError(f"expected a {what} JSON object")
    return payload


def _claude_json(stdout: str, stderr: str, writes: bool) -> str:
    """`claude -p --output-format json` prints one object whose `result` is the answer, and
    what the call used and cost (reported to the call's usage meter)."""
    return _claude_result(_json_object(stdout, "Claude Code"), writes)


def _claude_stream(stdout: str, stderr: str, writes: bool) -> str:
    """`claude -p --output-format stream-json --verbose` prints one event a line as the call
    goes (its retries too: `watch_claude_stream`); the last, `result`, is `--output-format
    json`'s object, which is read as well."""
    whole = _event(stdout.strip())
    if whole.get("type") == "result":  # `--output-format json` (the profile's code steps)
        return _claude_result(whole, writes)
    results = [e for e in map(_event, stdout.splitlines()) if e.get("type") == "result"]
    if not results:
        raise AgentOutputError("expected Claude Code stream-json events, got no result")
    return _claude_result(results[-1], writes)


def watch_claude_stream() -> Callable[[bytes], None]:
    """Reads Claude Code's events as they stream and stops the call at the first retry of a
    refused login (401/403): Claude Code would retry it for minutes."""
    pending = bytearray()

    def watch(chunk: bytes) -> None:
        pending.extend(chunk)
        *lines, rest = bytes(pending).split(b"\n")
        pending[:] = rest
        for line in lines:
            event = _event(line.decode("utf-8", errors="replace"))
            if event.get("subtype") == "api_retry" and event.get("error_status") in (401, 403):
                raise StopReading(
                    f"Claude Code's API refused its login ({event['error_status']} "
                    f"{_one_line(str(event.get('error') or ''))})".replace(" )", ")")
                )

    return watch


def _claude_result(payload: dict[str, Any], writes: bool) -> str:
    report(from_claude(payload))  # an error was paid for too
    result = payload.get("result")
    if not isinstance(result, str):
        raise AgentOutputError("Claude Code JSON has no string 'result' field")
    if payload.get("is_error"):
        raise CliApiError(
            f"Claude Code reported an error: {_one_line(result)}",
            _status(payload.get("api_error_status")),
        )
    denials = payload.get("permission_denials")
    if writes and isinstance(denials, list) and any(_edits(d) for d in denials):
        raise CliRefusal(f"Claude Code was refused {_denied(denials)}")
    return result.strip()


_CLAUDE_EDIT_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})


def _edits(denial: Any) -> bool:
    """A denied file edit: the step's work was not done. (A denied shell command other than
    the test command is the agent looking around; it is not what the step needed.)"""
    return isinstance(denial, dict) and denial.get("tool_name") in _CLAUDE_EDIT_TOOLS


def _denied(denials: list[Any]) -> str:
    named = []
    for denial in denials[:4]:
        if not isinstance(denial, dict):
            continue
        tool = str(denial.get("tool_name") or "a tool")
        given = denial.get("tool_input")
        given = given if isinstance(given, dict) else {}
        target = given.get("command") or given.get("file_path") or given.get("path") or ""
        named.append(f"{tool} {_one_line(str(target))[:80]}".strip())
    more = f" and {len(denials) - len(named)} more" if len(denials) > len(named) else ""
    return ", ".join(named) + more


def _codex_jsonl(stdout: str, stderr: str, writes: bool) -> str:
    """`codex exec --json`: the last agent message is the answer; every turn's usage counts."""
    events = [_event(line) for line in stdout.splitlines() if line.strip().startswith("{")]
    usages = [e["usage"] for e in events if e.get("type") == "turn.completed" and "usage" in e]
    if usages:
        report(from_codex(usages))
    failed = [e for e in events if e.get("type") == "turn.failed"]
    if failed:
        error = failed[-1].get("error")
        message = str(error.get("message") if isinstance(error, dict) else error)
        status = re.search(r"unexpected status (\d{3})", message)
        raise CliApiError(
            f"Codex reported an error: {_api_words(message)}",
            _status(status.group(1)) if status else None,
        )
    refused = [line.strip() for line in stderr.splitlines() if _CODEX_REFUSAL.search(line)]
    if writes and refused:
        raise CliRefusal(f"Codex was refused: {_one_line(refused[-1])}")
    messages = [
        e["item"].get("text")
        for e in events
        if e.get("type") == "item.completed"
        and isinstance(e.get("item"), dict)
        and e["item"].get("type") == "agent_message"
    ]
    if not events:
        raise AgentOutputError("expected Codex JSON events (exec --json), got none")
    answer = next((m for m in reversed(messages) if isinstance(m, str)), "")
    return answer.strip()


_CODEX_REFUSAL = re.compile(
    r"(?:patch|command) rejected:|blocked by (?:the )?[\w-]+ sandbox|Failed to write file "
)
"""A line of Codex's stderr that says so, a patch the write boundary refused included
(`write_boundary`: Codex runs without its own sandbox inside it, and says only that the write
failed). Matched line by line: a pattern spanning the line took time squared in its length,
minutes for a 200,000-character line."""


def _event(line: str) -> dict[str, Any]:
    try:
        event = parse_json(line, "an event")
    except ValueError:
        return {}
    return event if isinstance(event, dict) else {}


def _gemini_json(stdout: str, stderr: str, writes: bool) -> str:
    """`gemini -o json`: `response` is the answer; an API error comes as an `error` object,
    which Gemini CLI prints to stderr."""
    payload = _json_object(stdout, "Gemini CLI") if stdout.strip() else _last_object(stderr)
    stats = payload.get("stats")
    if isinstance(stats, dict):
        report(from_gemini(stats.get("models")))
    error = payload.get("error")
    if error is not None:
        message = error.get("message") if isinstance(error, dict) else error
        raise CliApiError(
            f"Gemini CLI reported an error: {_api_words(message)}",
            _status(error.get("code") if isinstance(error, dict) else None),
        )
    refused = _GEMINI_REFUSAL.findall(stderr)
    if writes and refused:
        build_file = "build configuration files" in refused[-1]
        raise CliRefusal(
            f"Gemini CLI was refused: {_one_line(refused[-1])}",
            GEMINI_BUILD_FILES if build_file else "",
        )
    response = payload.get("response")
    if not isinstance(response, str):
        raise AgentOutputError("Gemini CLI JSON has no string 'response' field")
    return response.strip()


_GEMINI_REFUSAL = re.compile(
    r'(Tool "?(?:write_file|replace)"? not found[^\n]*|'
    r"Error executing tool (?:write_file|replace): [^\n]*(?:not in workspace|denied|policy)[^\n]*)",
    re.IGNORECASE,
)
"""Gemini CLI's refusals of its edit tools: not offered (a headless mode without them), a path
outside the workspace, a policy denial."""


def _last_object(text: str) -> dict[str, Any]:
    """The JSON object that ends `text` (after a stack trace or warnings), if any."""
    start = text.rfind("\n{")
    candidate = text[start + 1 :] if start >= 0 else text
    try:
        payload = parse_json(candidate, "Gemini CLI's error")
    except ValueError:
        raise AgentOutputError("Gemini CLI printed no JSON") from None
    return payload if isinstance(payload, dict) else {}


def _status(value: Any) -> int | None:
    """An HTTP status a CLI names (a number, or its digits)."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _api_words(message: Any) -> str:
    """An API's own error message, out of the JSON body a CLI may quote whole."""
    text = str(message or "no message")
    try:
        body = parse_json(text, "an API error")
    except ValueError:
        return _one_line(text)
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict) and error.get("message"):
        status = error.get("code") or error.get("status") or ""
        return _one_line(f"{status} {error['message']}".strip())
    return _one_line(text)


def _one_line(text: str) -> str:
    return " ".join(text.split())[:300]


READERS: dict[str, ReadOutput] = {
    "text": _plain_text,
    "claude_json": _claude_json,
    "claude_stream": _claude_stream,
    "codex_jsonl": _codex_jsonl,
    "gemini_json": _gemini_json,
}


def normalise(output_format: str, stdout: str, stderr: str = "", writes: bool = False) -> str:
    """The answer inside the CLI's output, by its output form (`AgentOutputError` if none)."""
    return READERS[output_format](stdout, stderr, writes)
