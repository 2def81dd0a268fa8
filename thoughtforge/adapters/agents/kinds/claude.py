"""Claude Code (`@anthropic-ai/claude-code`): its switches, its flags as commander reads them, and
its output.

`-p --output-format json` prints one object: the reply in `result`, `is_error` with the API's
own words, `permission_denials` for every tool it was refused, usage and cost; `stream-json`
prints one event a line as the call goes (its retries too), the last of which is that object.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar

from thoughtforge.adapters.agents.call_usage import CallUsage, checked, report, summed, unusable
from thoughtforge.adapters.agents.flag_grammar import Grammar, always
from thoughtforge.adapters.agents.kinds.cli_kind import CliKind, ReadOutput
from thoughtforge.adapters.agents.output import (
    AgentOutputError,
    CliApiError,
    CliRefusal,
    causes,
    event,
    json_object,
    one_line,
    refused,
    retried,
    status,
    status_words,
)
from thoughtforge.adapters.agents.process import StopReading

EDIT_TOOLS = "Write,Edit,NotebookEdit,Bash"
_MAX_SETTINGS_BYTES = 1_000_000
_TEXT_MODES = frozenset({"default", "plan", "manual", "dontAsk"})
_ACTING_TOOLS = frozenset({"bash", "edit", "write", "multiedit", "notebookedit", "default"})
_QUIET_SETTINGS = frozenset(
    {
        *("$schema", "model", "permissions", "cleanupPeriodDays", "includeCoAuthoredBy"),
        *("outputStyle", "alwaysThinkingEnabled", "language", "theme", "spinnerTipsEnabled"),
    }
)
"""Settings keys that only shape an reply; any other (hooks, apiKeyHelper, statusLine, env,
mcpServers…) may run a command or change what runs, and is a grant on a text step."""
_DENIED_EDITS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})


def settings_grants(value: str) -> list[str]:
    """What a Claude `--settings` (JSON, or a file of it) grants: its keys that may run or allow
    something; one that cannot be read counts as granting."""
    text = value
    if not value.lstrip().startswith("{"):
        try:
            with Path(value).expanduser().open("rb") as file:
                text = file.read(_MAX_SETTINGS_BYTES).decode("utf-8", errors="replace")
        except OSError:
            return ["a settings file ThoughtForge cannot read"]
    try:
        settings: Any = json.loads(text)
    except ValueError:
        return ["settings that are not JSON"]
    if not isinstance(settings, dict):
        return ["settings that are not a JSON object"]
    found = [str(key) for key in settings if key not in _QUIET_SETTINGS]
    permissions = settings.get("permissions", {})
    if not isinstance(permissions, dict):
        return [*found, "permissions"]
    mode = permissions.get("defaultMode")
    if mode is not None and mode not in _TEXT_MODES:
        found.append(f"permissions.defaultMode {mode}")
    found += [
        f"permissions.{key}" for key in ("allow", "additionalDirectories") if permissions.get(key)
    ]
    return found


def _grants_tools(value: str) -> bool:
    return any(tool.strip().lower() in _ACTING_TOOLS for tool in re.split(r"[,\s]+", value))


GRAMMAR = Grammar(
    names={
        "--dangerously-skip-permissions": "--dangerously-skip-permissions",
        "--allow-dangerously-skip-permissions": "--allow-dangerously-skip-permissions",
        **{s: "--permission-mode" for s in ("--permission-mode", "--permissionMode")},
        **{s: "--allowed-tools" for s in ("--allowedTools", "--allowed-tools")},
        **{s: s for s in ("--add-dir", "--settings", "--mcp-config", "--plugin-dir")},
        **{s: s for s in ("--agents", "--tools", "--model", "--output-format")},
        **{s: s for s in ("--append-system-prompt", "--system-prompt", "--fallback-model")},
        **{s: s for s in ("--input-format", "--session-id", "--max-turns", "--setting-sources")},
        **{s: "--disallowed-tools" for s in ("--disallowedTools", "--disallowed-tools")},
        **{"-p": "--print", "--print": "--print", "-c": "--continue", "--continue": "--continue"},
        **{"-r": "--resume", "--resume": "--resume", "-d": "--debug", "--debug": "--debug"},
        "--verbose": "--verbose",
    },
    valued=frozenset(
        {
            *("--permission-mode", "--allowed-tools", "--add-dir", "--settings"),
            *("--mcp-config", "--plugin-dir", "--agents", "--tools", "--model"),
            *("--output-format", "--append-system-prompt", "--system-prompt"),
            *("--fallback-model", "--input-format", "--session-id", "--max-turns"),
            *("--setting-sources", "--disallowed-tools"),
        }
    ),
    grants={
        "--dangerously-skip-permissions": always,
        "--allow-dangerously-skip-permissions": always,
        "--permission-mode": lambda value: value not in _TEXT_MODES,
        "--allowed-tools": always,
        "--add-dir": always,
        "--settings": lambda value: bool(settings_grants(value)),
        "--mcp-config": always,  # each server is a command the CLI starts
        "--plugin-dir": always,
        "--agents": always,  # sub-agents with their own tools
        "--tools": _grants_tools,
    },
)


def from_claude(payload: Any) -> CallUsage:
    """Claude Code's `--output-format json`: `modelUsage` (every model the call used, its side
    requests too) or else `usage` (cache reads and writes are input too), and `total_cost_usd`."""
    if not isinstance(payload, dict):
        return unusable("no JSON object")
    cost = payload.get("total_cost_usd")
    models = payload.get("modelUsage")
    if isinstance(models, dict) and models and all(isinstance(m, dict) for m in models.values()):
        return summed(
            list(models.values()),
            tokens_in=("inputTokens", "cacheReadInputTokens", "cacheCreationInputTokens"),
            tokens_out=("outputTokens",),
            usd=cost,
        )
    return checked(
        payload.get("usage"),
        tokens_in=("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"),
        tokens_out=("output_tokens",),
        usd=cost,
        sum_in=True,
    )


def _claude_json(stdout: str, stderr: str, writes: bool) -> str:
    """`claude -p --output-format json` prints one object whose `result` is the reply, and
    what the call used and cost (reported to the call's usage meter)."""
    return _result(json_object(stdout, "Claude Code"), writes)


def _claude_stream(stdout: str, stderr: str, writes: bool) -> str:
    """`claude -p --output-format stream-json --verbose` prints one event a line as the call
    goes (its retries too: `watch_claude_stream`); the last, `result`, is `--output-format
    json`'s object, which is read as well."""
    whole = event(stdout.strip())
    if whole.get("type") == "result":  # `--output-format json` (the kind's code steps)
        return _result(whole, writes)
    results = [e for e in map(event, stdout.splitlines()) if e.get("type") == "result"]
    if not results:
        raise AgentOutputError("expected Claude Code stream-json events, got no result")
    return _result(results[-1], writes)


def watch_claude_stream() -> Callable[[bytes], None]:
    """Reads Claude Code's events as they stream and stops the call at the first retry of a
    refused login (401/403): Claude Code would retry it for minutes."""
    pending = bytearray()

    def watch(chunk: bytes) -> None:
        pending.extend(chunk)
        *lines, rest = bytes(pending).split(b"\n")
        pending[:] = rest
        for line in lines:
            seen = event(line.decode("utf-8", errors="replace"))
            if seen.get("subtype") == "api_retry" and seen.get("error_status") in (401, 403):
                raise StopReading(
                    f"Claude Code's API refused its login ({seen['error_status']} "
                    f"{one_line(str(seen.get('error') or ''))})".replace(" )", ")")
                )

    return watch


def _result(payload: dict[str, Any], writes: bool) -> str:
    report(from_claude(payload))  # an error was paid for too
    result = payload.get("result")
    if not isinstance(result, str):
        raise AgentOutputError("Claude Code JSON has no string 'result' field")
    if payload.get("is_error"):
        raise CliApiError(
            f"Claude Code reported an error: {one_line(result)}",
            status(payload.get("api_error_status")),
        )
    denials = payload.get("permission_denials")
    if writes and isinstance(denials, list) and any(_edits(d) for d in denials):
        raise CliRefusal(f"Claude Code was refused {_denied(denials)}")
    return result.strip()


def _edits(denial: Any) -> bool:
    """A denied file edit: the step's work was not done. (A denied shell command other than
    the test command is the agent looking around; it is not what the step needed.)"""
    return isinstance(denial, dict) and denial.get("tool_name") in _DENIED_EDITS


def _attempted(denial: dict[str, Any]) -> str:
    """What a denied tool call tried: its command, or the tool and its file."""
    given = denial.get("tool_input")
    given = given if isinstance(given, dict) else {}
    if given.get("command"):
        return str(given["command"])
    target = given.get("file_path") or given.get("path") or ""
    return f"{denial.get('tool_name') or 'a tool'} {target}".strip()


def _denied(denials: list[Any]) -> str:
    named = []
    for denial in denials[:4]:
        if not isinstance(denial, dict):
            continue
        tool = str(denial.get("tool_name") or "a tool")
        given = denial.get("tool_input")
        given = given if isinstance(given, dict) else {}
        target = given.get("command") or given.get("file_path") or given.get("path") or ""
        named.append(f"{tool} {one_line(str(target))[:80]}".strip())
    more = f" and {len(denials) - len(named)} more" if len(denials) > len(named) else ""
    return ", ".join(named) + more


class ClaudeKind(CliKind):
    grammar: ClassVar[Grammar] = GRAMMAR
    readers: ClassVar[dict[str, ReadOutput]] = {
        "claude_json": _claude_json,
        "claude_stream": _claude_stream,
    }
    # 0.5 s doubling to at most 32 s, up to 25 % jitter; 10 retries unless told (measured
    # against the fake's 503: 195 s for the ten).
    retry_waits: ClassVar[tuple[float, ...]] = (0.625, 1.25, 2.5, 5.0, 10.0, 20.0, *(40.0,) * 4)

    def retry_environment(self, seconds: float, scratch: Path) -> dict[str, str]:
        """`CLAUDE_CODE_MAX_RETRIES`, the person's own when it is lower."""
        retries = self.retries_within(seconds)
        own = os.environ.get("CLAUDE_CODE_MAX_RETRIES", "")
        if own.isdigit():
            retries = min(retries, int(own))
        return {"CLAUDE_CODE_MAX_RETRIES": str(retries)}

    def test_grant(self, test_command: Sequence[str]) -> list[str]:
        return ["--allowedTools", f"Bash({shlex.join(test_command)}:*)"]

    def watch(self) -> Callable[[bytes], None] | None:
        return watch_claude_stream() if self.output == "claude_stream" else None

    def inside(self, stdout: str, stderr: str) -> list[str]:
        """stream-json's `api_retry` events (a code step's `json` has none), and the result's
        `permission_denials`."""
        whole = event(stdout.strip())
        seen = [whole] if whole.get("type") == "result" else list(map(event, stdout.splitlines()))
        retries = [
            status_words(e.get("error_status"), str(e.get("error") or "an error"))
            for e in seen
            if e.get("subtype") == "api_retry"
        ]
        notes = [retried(count, cause) for cause, count in causes(retries)]
        results = [e for e in seen if e.get("type") == "result"]
        denials = results[-1].get("permission_denials") if results else None
        for denial in denials if isinstance(denials, list) else []:
            if isinstance(denial, dict):
                notes.append(refused(_attempted(denial), "Claude Code's permissions"))
        return notes


CLAUDE = ClaudeKind(
    name="claude",
    packages=("@anthropic-ai/claude-code",),
    tested_with="2.1.328",
    output="claude_stream",
    # -p reads the prompt on stdin; stream-json shows its retries as they happen (a refused
    # login stops the call); the edit and shell tools are removed for text steps.
    text_flags=(
        *("-p", "--output-format", "stream-json", "--verbose"),
        *("--permission-mode", "default", "--disallowedTools", EDIT_TOOLS),
    ),
    # acceptEdits: file edits inside the working directory only; shell only as test_grant.
    # json, not stream-json: a build's stream repeats every file it reads and writes, and
    # could pass agents.max_reply_bytes; a refused login shows at the first text step.
    write_flags=("-p", "--output-format", "json", "--permission-mode", "acceptEdits"),
    overhead_tokens=12_000,
    login_hint="run `claude` once and log in, or set ANTHROPIC_API_KEY",
    key_variables=("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"),
    login_files=("~/.claude/.credentials.json", "~/.claude.json"),
    own_files=("$CLAUDE_CONFIG_DIR/", "~/.claude/", "~/.claude.json"),
)
