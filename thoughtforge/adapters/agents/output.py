"""Turn each agent CLI's stdout into the plain text of its answer."""

from __future__ import annotations

import json
from collections.abc import Callable

from thoughtforge.adapters.agents.usage import from_claude, report


class AgentOutputError(ValueError):
    """The output is not in the form the agent's `output` setting promises."""


def _plain_text(stdout: str) -> str:
    return stdout.strip()


def _claude_json(stdout: str) -> str:
    """`claude -p --output-format json` prints one object whose `result` is the answer, and
    what the call used and cost (reported to the call's usage meter)."""
    try:
        payload = json.loads(stdout)
    except json.JSONDecodeError as exc:
        raise AgentOutputError(
            f"expected Claude Code JSON, got unparsable output ({exc})"
        ) from None
    if isinstance(payload, dict):
        report(from_claude(payload))  # an error was paid for too
    if not isinstance(payload, dict) or not isinstance(payload.get("result"), str):
        raise AgentOutputError("Claude Code JSON has no string 'result' field")
    if payload.get("is_error"):
        raise AgentOutputError(f"Claude Code reported an error: {payload['result'][:200]}")
    return payload["result"].strip()


NORMALISERS: dict[str, Callable[[str], str]] = {"text": _plain_text, "claude_json": _claude_json}


def normalise(output_format: str, stdout: str) -> str:
    """The answer inside `stdout`, by the agent's `output` setting from config."""
    return NORMALISERS[output_format](stdout)
