"""Codex (`@openai/codex`): its switches, its flags as clap reads them, and its output.

`codex exec --json` prints one event a line: `agent_message` items, `turn.completed` usage,
`turn.failed` errors; the sandbox's refusals go to stderr.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from typing import Any, ClassVar

from thoughtforge.adapters.agents.call_usage import CallUsage, report, summed
from thoughtforge.adapters.agents.flag_grammar import Grammar, always
from thoughtforge.adapters.agents.kinds.cli_kind import CliKind, ReadOutput
from thoughtforge.adapters.agents.output import (
    AgentOutputError,
    CliApiError,
    CliRefusal,
    api_words,
    causes,
    events,
    one_line,
    refused,
    retried,
    status,
    status_words,
)

_WRITABLE = frozenset({"workspace-write", "danger-full-access"})
_QUIET_KEYS = re.compile(
    r"^(model\w*|model_providers\.[\w.-]+|hide_agent_reasoning|show_raw_agent_reasoning|"
    r"approval_policy|openai_base_url|web_search|tools\.web_search)$"
)
"""`-c` overrides that only shape an reply; `sandbox_mode` is judged by its value."""


def _override_grants(value: str) -> bool:
    if not value.strip():
        return False
    key, _, setting = value.partition("=")
    key = key.strip()
    if key == "sandbox_mode":
        return setting.strip().strip("\"'") in _WRITABLE
    return _QUIET_KEYS.match(key) is None


GRAMMAR = Grammar(
    names={
        **{s: "--sandbox" for s in ("-s", "--sandbox")},
        **{s: "--config" for s in ("-c", "--config")},
        **{s: "--profile" for s in ("-p", "--profile")},
        **{s: "--output-last-message" for s in ("-o", "--output-last-message")},
        **{s: "--model" for s in ("-m", "--model")},
        **{s: "--ask-for-approval" for s in ("-a", "--ask-for-approval")},
        **{s: "--cd" for s in ("-C", "--cd")},
        **{s: "--image" for s in ("-i", "--image")},
        **{s: "--yolo" for s in ("--yolo", "--dangerously-bypass-approvals-and-sandbox")},
        **{s: s for s in ("--full-auto", "--approve-for-me", "--trust", "--add-dir")},
        **{s: s for s in ("--dangerously-bypass-hook-trust", "--json", "--output-schema")},
        **{s: s for s in ("--enable", "--disable", "--color", "--skip-git-repo-check")},
    },
    valued=frozenset(
        {
            *("--sandbox", "--config", "--profile", "--output-last-message", "--model"),
            *("--ask-for-approval", "--cd", "--image", "--add-dir", "--output-schema"),
            *("--enable", "--disable", "--color"),
        }
    ),
    grants={
        "--sandbox": lambda value: value in _WRITABLE,
        "--config": _override_grants,
        "--profile": lambda value: bool(value.strip()),  # a profile may set any of them
        "--output-last-message": always,  # writes a file where it is told
        "--yolo": always,
        "--full-auto": always,
        "--approve-for-me": always,
        "--trust": always,
        "--add-dir": always,
        "--dangerously-bypass-hook-trust": always,
    },
)


def from_codex(usages: list[Any]) -> CallUsage:
    """Codex's `exec --json`: each `turn.completed` event's `usage` (`input_tokens` counts the
    cached ones too; reasoning is within `output_tokens`). Codex reports no cost."""
    return summed(usages, tokens_in=("input_tokens",), tokens_out=("output_tokens",), usd=None)


def _codex_jsonl(stdout: str, stderr: str, writes: bool) -> str:
    """`codex exec --json`: the last agent message is the reply; every turn's usage counts."""
    seen = events(stdout)
    usages = [e["usage"] for e in seen if e.get("type") == "turn.completed" and "usage" in e]
    if usages:
        report(from_codex(usages))
    failed = [e for e in seen if e.get("type") == "turn.failed"]
    if failed:
        error = failed[-1].get("error")
        message = str(error.get("message") if isinstance(error, dict) else error)
        code = re.search(r"unexpected status (\d{3})", message)
        raise CliApiError(
            f"Codex reported an error: {api_words(message)}",
            status(code.group(1)) if code else None,
        )
    refused = [line.strip() for line in stderr.splitlines() if _REFUSAL.search(line)]
    if writes and refused:
        raise CliRefusal(f"Codex was refused: {one_line(refused[-1])}")
    messages = [
        e["item"].get("text")
        for e in seen
        if e.get("type") == "item.completed"
        and isinstance(e.get("item"), dict)
        and e["item"].get("type") == "agent_message"
    ]
    if not seen:
        raise AgentOutputError("expected Codex JSON events (exec --json), got none")
    reply = next((m for m in reversed(messages) if isinstance(m, str)), "")
    return reply.strip()


_REFUSAL = re.compile(
    r"(?:patch|command) rejected:|blocked by (?:the )?[\w-]+ sandbox|Failed to write file "
)
"""A line of Codex's stderr that says so, a patch the write boundary refused included
(`write_boundary`: Codex runs without its own sandbox inside it, and says only that the write
failed). Matched line by line: a pattern spanning the line took time squared in its length,
minutes for a 200,000-character line."""


_RECONNECTING = re.compile(r"^Reconnecting\.\.\. \d+/\d+ \((.*)\)$", re.DOTALL)
_GAVE_UP = re.compile(r"^exceeded retry limit, last status: (\d{3})(?: ([A-Za-z][A-Za-z ]*))?")
"""A status it does not retry (a plain 429): it stops the turn at the first."""
_STATUS = re.compile(r"unexpected status (\d{3})(?: ([A-Za-z][A-Za-z ]*))?")
_REJECTED = re.compile(r"`([^`\n]{1,2000})` rejected: ([^\"\\\n]{1,300})")
"""Its own rule refusing a command, which it tells only on stderr."""
_SANDBOXED = re.compile(r"Operation not permitted|Permission denied|Read-only file system")
"""A command its sandbox (or ThoughtForge's boundary) refused a write or the network."""


def _retry_cause(message: str) -> str:
    found = _STATUS.search(message)
    if found is None:
        return one_line(message)[:120]
    return status_words(found.group(1), (found.group(2) or "").strip())


def _command(line: str) -> str:
    """The command a model asked for, out of Codex's `/bin/bash -lc '…'`."""
    try:
        words = shlex.split(line)
    except ValueError:
        return line
    shell = len(words) == 3 and words[0].endswith("sh") and words[1] in ("-lc", "-c")
    return words[2] if shell else line


class CodexKind(CliKind):
    grammar: ClassVar[Grammar] = GRAMMAR
    readers: ClassVar[dict[str, ReadOutput]] = {"codex_jsonl": _codex_jsonl}

    def inside(self, stdout: str, stderr: str) -> list[str]:
        """Its `Reconnecting... n/m (cause)` error events; the commands its rules rejected
        (stderr) and those its sandbox failed (a `command_execution` item whose output says
        the write or the network was not permitted)."""
        seen = events(stdout)
        retries = [
            _retry_cause(found.group(1))
            for e in seen
            if e.get("type") == "error"
            and (found := _RECONNECTING.match(str(e.get("message") or ""))) is not None
        ]
        notes = [retried(count, cause) for cause, count in causes(retries)]
        for e in seen:
            gave_up = (
                _GAVE_UP.match(str(e.get("message") or "")) if e.get("type") == "error" else None
            )
            if gave_up is not None and not retries:
                said = status_words(gave_up.group(1), (gave_up.group(2) or "").strip())
                notes.append(
                    f"the agent's CLI stopped at the first {said}: Codex does not retry it"
                )
        for line in stderr.splitlines():
            rejected = _REJECTED.search(line)
            if rejected is not None:
                notes.append(refused(_command(rejected.group(1)), f"Codex ({rejected.group(2)})"))
        for e in seen:
            item = e.get("item")
            if (
                e.get("type") == "item.completed"
                and isinstance(item, dict)
                and item.get("type") == "command_execution"
                and item.get("exit_code") not in (0, None)
                and _SANDBOXED.search(str(item.get("aggregated_output") or "")[-2000:])
            ):
                notes.append(refused(_command(str(item.get("command") or "")), "its sandbox"))
        return notes

    def test_grant(self, test_command: Sequence[str]) -> list[str]:
        return []  # its workspace-write sandbox runs commands in the project already


CODEX = CodexKind(
    name="codex",
    packages=("@openai/codex",),
    tested_with="0.171.0",
    output="codex_jsonl",
    # `-` reads the prompt on stdin; --json prints events with each turn's usage.
    text_flags=("exec", "--json", "--sandbox", "read-only", "-"),
    # workspace-write: writes and commands inside the project folder, no network; without
    # /tmp and $TMPDIR, which it adds by default (a project under /tmp: its neighbours).
    write_flags=(
        *("exec", "--json", "--sandbox", "workspace-write"),
        *("-c", "sandbox_workspace_write.exclude_slash_tmp=true"),
        *("-c", "sandbox_workspace_write.exclude_tmpdir_env_var=true", "-"),
    ),
    # Its sandbox (bubblewrap) cannot mount inside Landlock, and its legacy Landlock mode
    # refuses workspace-write: ThoughtForge's boundary alone holds the writes.
    held_write_flags=("exec", "--json", "--sandbox", "danger-full-access", "-"),
    overhead_tokens=16_000,
    login_hint="run `codex login`, or set CODEX_API_KEY",
    key_variables=("CODEX_API_KEY", "OPENAI_API_KEY"),
    login_files=("$CODEX_HOME/auth.json", "~/.codex/auth.json"),
    own_files=("$CODEX_HOME/", "~/.codex/"),
)
