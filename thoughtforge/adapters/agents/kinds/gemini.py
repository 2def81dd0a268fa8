"""Gemini CLI (`@google/gemini-cli`): its switches, its flags as yargs reads them, and its output.

`gemini -o json` prints one object with `response` and `stats.models.*.tokens`, or an `error`
object (on stderr). Its own retries of a 429 or 5xx are not bounded by any setting it reads:
`general.maxAttempts` gives way to its model availability policy (ten attempts, 5 s doubling to
30 s: 331 s for a persistent 503, measured with and without the setting), so the call's deadline
alone ends them.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from typing import Any, ClassVar

from thoughtforge.adapters.agents.call_usage import CallUsage, report, summed, unusable
from thoughtforge.adapters.agents.flag_grammar import Grammar, always, unless_false
from thoughtforge.adapters.agents.kinds.cli_kind import CliKind, ReadOutput
from thoughtforge.adapters.agents.output import (
    AgentOutputError,
    CliApiError,
    CliRefusal,
    api_words,
    causes,
    json_object,
    one_line,
    refused,
    retried,
    status,
    status_words,
)
from thoughtforge.bounded_input import parse_json

GEMINI_BUILD_FILES = (
    "Gemini CLI never writes build files (pyproject.toml, setup.cfg, package.json, Makefile, "
    "Cargo.toml, go.mod…) when run headless: its policy engine denies them after every rule, "
    "so no policy file, `--policy` or `--yolo` can allow them, only a person at its own prompt; "
    "add the file to the project folder yourself, then resume, or build code projects with "
    "another agent"
)
"""Why no grant of ThoughtForge's can help: gemini-cli's `PolicyEngine.check` (0.61.0,
"Build File Protection") turns an allowed `write_file`/`replace` of a file named as a build file,
wherever it is, into a denial when headless (a question when a person is at its prompt), after
every rule of every tier has been matched; hooks cannot allow a call either. Driving it over ACP
(`gemini --acp`), where that question comes to the client, is the one way to grant them."""
_TEXT_MODES = frozenset({"default", "plan"})

GRAMMAR = Grammar(
    names={
        **{s: "--yolo" for s in ("-y", "--yolo")},
        **{s: s for s in ("--approval-mode", "--allowed-tools", "--include-directories")},
        **{s: s for s in ("--policy", "--admin-policy", "--session-summary")},
        **{s: s for s in ("--telemetry-outfile", "--skip-trust", "--allowed-mcp-server-names")},
        **{s: "--extensions" for s in ("-e", "--extensions")},
        **{s: "--prompt" for s in ("-p", "--prompt")},
        **{s: "--prompt-interactive" for s in ("-i", "--prompt-interactive")},
        **{s: "--model" for s in ("-m", "--model")},
        **{s: "--output-format" for s in ("-o", "--output-format")},
        **{s: "--sandbox" for s in ("-s", "--sandbox")},
        **{s: "--debug" for s in ("-d", "--debug")},
    },
    valued=frozenset(
        {
            *("--approval-mode", "--allowed-tools", "--include-directories", "--policy"),
            *("--admin-policy", "--session-summary", "--telemetry-outfile", "--extensions"),
            *("--allowed-mcp-server-names", "--prompt", "--prompt-interactive", "--model"),
            "--output-format",
        }
    ),
    grants={
        "--yolo": unless_false,
        "--approval-mode": lambda value: value not in _TEXT_MODES,
        "--allowed-tools": always,
        "--include-directories": always,
        "--policy": always,
        "--admin-policy": always,
        "--session-summary": always,  # writes a file where it is told
        "--telemetry-outfile": always,
        "--extensions": lambda value: value.strip().lower() not in ("none", ""),
    },
    camel=True,
    booleans_take_words=True,
)


def from_gemini(models: Any) -> CallUsage:
    """Gemini CLI's `-o json`: `stats.models.<model>.tokens` for every model the call used (its
    router too): `prompt` in; `candidates` and `thoughts` out. It reports no cost."""
    if not isinstance(models, dict) or not models:
        return unusable("no stats.models")
    tokens = [m.get("tokens") if isinstance(m, dict) else None for m in models.values()]
    return summed(tokens, tokens_in=("prompt",), tokens_out=("candidates", "thoughts"), usd=None)


def _gemini_json(stdout: str, stderr: str, writes: bool) -> str:
    """`gemini -o json`: `response` is the reply; an API error comes as an `error` object,
    which Gemini CLI prints to stderr."""
    payload = json_object(stdout, "Gemini CLI") if stdout.strip() else _last_object(stderr)
    stats = payload.get("stats")
    if isinstance(stats, dict):
        report(from_gemini(stats.get("models")))
    error = payload.get("error")
    if error is not None:
        message = error.get("message") if isinstance(error, dict) else error
        raise CliApiError(
            f"Gemini CLI reported an error: {api_words(message)}",
            status(error.get("code") if isinstance(error, dict) else None),
        )
    refused = _REFUSAL.findall(stderr)
    if writes and refused:
        build_file = "build configuration files" in refused[-1]
        raise CliRefusal(
            f"Gemini CLI was refused: {one_line(refused[-1])}",
            GEMINI_BUILD_FILES if build_file else "",
        )
    response = payload.get("response")
    if not isinstance(response, str):
        raise AgentOutputError("Gemini CLI JSON has no string 'response' field")
    return response.strip()


_REFUSAL = re.compile(
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


_RETRY = re.compile(r"^Attempt \d+ failed with status (\d{3})\. Retrying", re.MULTILINE)
_DENIED = re.compile(
    r"^Error executing tool (\w+): ([^\n]{0,300}denied[^\n]{0,300})$", re.MULTILINE
)
"""Its retries and refused tool calls, which `-o json` leaves out and it tells on stderr (the
call's command is not named there: `stream-json`'s `tool_use` events would)."""


class GeminiKind(CliKind):
    grammar: ClassVar[Grammar] = GRAMMAR
    readers: ClassVar[dict[str, ReadOutput]] = {"gemini_json": _gemini_json}

    def test_grant(self, test_command: Sequence[str]) -> list[str]:
        return ["--allowed-tools", f"run_shell_command({shlex.join(test_command)})"]

    def inside(self, stdout: str, stderr: str) -> list[str]:
        retries = [status_words(code) for code in _RETRY.findall(stderr)]
        notes = [retried(count, cause) for cause, count in causes(retries)]
        for tool, why in _DENIED.findall(stderr):
            notes.append(refused(tool, f"Gemini CLI ({why.rstrip('.')})"))
        return notes


GEMINI = GeminiKind(
    name="gemini",
    packages=("@google/gemini-cli",),
    tested_with="0.61.0",
    output="gemini_json",
    # -p "" runs headless with the prompt from stdin; --skip-trust trusts the project
    # folder for this call only (headless gemini refuses an untrusted folder).
    text_flags=("--skip-trust", "-p", "", "-o", "json", "--approval-mode", "default"),
    # auto_edit: its edit tools only; the shell only for the test command (test_grant).
    write_flags=("--skip-trust", "-p", "", "-o", "json", "--approval-mode", "auto_edit"),
    overhead_tokens=11_200,
    login_hint="run `gemini` once and log in, or set GEMINI_API_KEY",
    key_variables=(
        *("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_APPLICATION_CREDENTIALS"),
        "GOOGLE_GENAI_USE_VERTEXAI",
    ),
    login_files=("~/.gemini/oauth_creds.json",),
    own_files=("~/.gemini/",),
)
