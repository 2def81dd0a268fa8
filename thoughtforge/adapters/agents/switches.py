"""Which command-line switches let Claude Code, Codex or Gemini CLI act, not only answer: edit
files, run commands, reach past the working directory, or skip their permission checks.

The flags are read the way each CLI's own parser reads them, so a grant is found however it is
spelled: Claude Code's commander (`--opt=value`, `-rVALUE`, combined short flags), Codex's clap
(`-sdanger-full-access`, `-csandbox_mode=…`, `--sandbox=…`) and Gemini CLI's yargs
(`--approvalMode=yolo`, `-dy`, `--no-…`). What a flag's value holds is judged too: Claude's
`--settings` JSON (a hook, a helper command or a permission grant), a Codex `-c` override outside
the model's own settings. A flag of a CLI that ThoughtForge does not know is judged by every CLI's
grammar at once. `launch.py` finds which CLI a command runs (through `env`, a shell, `node`).

A person's own `flags` are read with this before a text step (`invoke`) and by the plan-mode
safety rules (`phases.safety`): a grant on a text step is refused before any call.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

Cli = Literal["claude", "codex", "gemini"]
CLIS: tuple[Cli, ...] = ("claude", "codex", "gemini")

_MAX_SETTINGS_BYTES = 1_000_000
_CLAUDE_TEXT_MODES = frozenset({"default", "plan", "manual", "dontAsk"})
_CLAUDE_ACTING_TOOLS = frozenset({"bash", "edit", "write", "multiedit", "notebookedit", "default"})
_CLAUDE_QUIET_SETTINGS = frozenset(
    {
        *("$schema", "model", "permissions", "cleanupPeriodDays", "includeCoAuthoredBy"),
        *("outputStyle", "alwaysThinkingEnabled", "language", "theme", "spinnerTipsEnabled"),
    }
)
"""Settings keys that only shape an answer; any other (hooks, apiKeyHelper, statusLine, env,
mcpServers…) may run a command or change what runs, and is a grant on a text step."""
_CODEX_WRITABLE = frozenset({"workspace-write", "danger-full-access"})
_CODEX_QUIET_KEYS = re.compile(
    r"^(model\w*|model_providers\.[\w.-]+|hide_agent_reasoning|show_raw_agent_reasoning|"
    r"approval_policy|openai_base_url|web_search|tools\.web_search)$"
)
"""`-c` overrides that only shape an answer; `sandbox_mode` is judged by its value."""
_GEMINI_TEXT_MODES = frozenset({"default", "plan"})


Judge = Callable[[str], bool]
"""Whether an option's value grants (for a boolean option: its "true"/"false", or "")."""


def _always(value: str) -> bool:
    return True


def _unless_false(value: str) -> bool:
    return value.lower() not in ("false", "0", "no")


@dataclass(frozen=True)
class Grammar:
    """One CLI's options: spellings to one name, which take a value, and which grant (by what)."""

    names: dict[str, str]
    """Every spelling (`-s`, `--sandbox`) to the option's name."""
    valued: frozenset[str]
    """Names of options that take a value (the next word, `=value`, or the rest of `-sVALUE`)."""
    grants: dict[str, Judge]
    camel: bool = False
    """yargs: `--approvalMode` is `--approval-mode`, `--no-yolo` is `--yolo false`."""
    booleans_take_words: bool = False
    """yargs: a boolean option takes a following `true` or `false`."""

    def name_of(self, spelling: str) -> str | None:
        if spelling in self.names:
            return self.names[spelling]
        if self.camel and spelling.startswith("--"):
            kebab = "--" + re.sub(r"(?<=[a-z0-9])([A-Z])", r"-\1", spelling[2:]).lower()
            return self.names.get(kebab)
        return None


def _claude_settings(value: str) -> bool:
    return bool(settings_grants(value))


def _claude_tools(value: str) -> bool:
    return any(tool.strip().lower() in _CLAUDE_ACTING_TOOLS for tool in re.split(r"[,\s]+", value))


def _codex_override(value: str) -> bool:
    if not value.strip():
        return False
    key, _, setting = value.partition("=")
    key = key.strip()
    if key == "sandbox_mode":
        return setting.strip().strip("\"'") in _CODEX_WRITABLE
    return _CODEX_QUIET_KEYS.match(key) is None


GRAMMARS: dict[Cli, Grammar] = {
    "claude": Grammar(
        names={
            **{
                s: s
                for s in ("--dangerously-skip-permissions", "--allow-dangerously-skip-permissions")
            },
            **{s: "--permission-mode" for s in ("--permission-mode", "--permissionMode")},
            **{s: "--allowed-tools" for s in ("--allowedTools", "--allowed-tools")},
            **{s: s for s in ("--add-dir", "--settings", "--mcp-config", "--plugin-dir")},
            **{s: s for s in ("--agents", "--tools", "--model", "--output-format")},
            **{s: s for s in ("--append-system-prompt", "--system-prompt", "--fallback-model")},
            **{
                s: s for s in ("--input-format", "--session-id", "--max-turns", "--setting-sources")
            },
            **{s: "--disallowed-tools" for s in ("--disallowedTools", "--disallowed-tools")},
            **{
                "-p": "--print",
                "--print": "--print",
                "-c": "--continue",
                "--continue": "--continue",
            },
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
            "--dangerously-skip-permissions": _always,
            "--allow-dangerously-skip-permissions": _always,
            "--permission-mode": lambda value: value not in _CLAUDE_TEXT_MODES,
            "--allowed-tools": _always,
            "--add-dir": _always,
            "--settings": _claude_settings,
            "--mcp-config": _always,  # each server is a command the CLI starts
            "--plugin-dir": _always,
            "--agents": _always,  # sub-agents with their own tools
            "--tools": _claude_tools,
        },
    ),
    "codex": Grammar(
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
            "--sandbox": lambda value: value in _CODEX_WRITABLE,
            "--config": _codex_override,
            "--profile": lambda value: bool(value.strip()),  # a profile may set any of them
            "--output-last-message": _always,  # writes a file where it is told
            "--yolo": _always,
            "--full-auto": _always,
            "--approve-for-me": _always,
            "--trust": _always,
            "--add-dir": _always,
            "--dangerously-bypass-hook-trust": _always,
        },
    ),
    "gemini": Grammar(
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
            "--yolo": _unless_false,
            "--approval-mode": lambda value: value not in _GEMINI_TEXT_MODES,
            "--allowed-tools": _always,
            "--include-directories": _always,
            "--policy": _always,
            "--admin-policy": _always,
            "--session-summary": _always,  # writes a file where it is told
            "--telemetry-outfile": _always,
            "--extensions": lambda value: value.strip().lower() not in ("none", ""),
        },
        camel=True,
        booleans_take_words=True,
    ),
}


def tool_granting_flags(flags: Sequence[str], cli: Cli | None = None) -> list[str]:
    """The flags (with their values) that give an agent tools or autonomy, read as `cli` reads
    them (as every known CLI would, when unknown), for the refusal text."""
    grammars = [GRAMMARS[cli]] if cli is not None else [GRAMMARS[name] for name in CLIS]
    found: list[str] = []
    for grammar in grammars:
        found += [said for said in _granting(grammar, flags) if said not in found]
    return found


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
    found = [str(key) for key in settings if key not in _CLAUDE_QUIET_SETTINGS]
    permissions = settings.get("permissions", {})
    if not isinstance(permissions, dict):
        return [*found, "permissions"]
    mode = permissions.get("defaultMode")
    if mode is not None and mode not in _CLAUDE_TEXT_MODES:
        found.append(f"permissions.defaultMode {mode}")
    found += [
        f"permissions.{key}" for key in ("allow", "additionalDirectories") if permissions.get(key)
    ]
    return found


def _granting(grammar: Grammar, flags: Sequence[str]) -> list[str]:
    """Each granting option of `flags` as `NAME VALUE`, read in `grammar`."""
    found: list[str] = []
    for name, value, spelled in _options(grammar, flags):
        judge = grammar.grants.get(name)
        if judge is not None and judge(value):
            found.append(f"{spelled} {value}" if value not in ("", "true") else spelled)
    return found


def _options(grammar: Grammar, flags: Sequence[str]) -> list[tuple[str, str, str]]:
    """`(name, value, as spelled)` for every option `flags` sets; words that are no option of
    this grammar are skipped."""
    out: list[tuple[str, str, str]] = []
    index = 0
    while index < len(flags):
        word = flags[index]
        index += 1
        if word == "--":
            break
        if word.startswith("--"):
            spelling, equals, attached = word.partition("=")
            negated = grammar.camel and spelling.startswith("--no-")
            name = grammar.name_of("--" + spelling[5:] if negated else spelling)
            if name is None:
                continue
            if negated:
                out.append((name, "false", word))
            elif equals:
                out.append((name, attached, spelling))
            elif name in grammar.valued:
                value = _value_at(flags, index)
                index += value is not None
                out.append((name, value or "", spelling))
            elif (
                grammar.booleans_take_words
                and index < len(flags)
                and flags[index] in ("true", "false")
            ):
                out.append((name, flags[index], spelling))
                index += 1
            else:
                out.append((name, "", spelling))
        elif word.startswith("-") and len(word) > 1:
            index = _short_cluster(grammar, word, flags, index, out)
    return out


def _short_cluster(
    grammar: Grammar,
    word: str,
    flags: Sequence[str],
    index: int,
    out: list[tuple[str, str, str]],
) -> int:
    """`-abc`: each letter an option, until one that takes a value, which takes the rest
    (`-sdanger-full-access`, `-s=x`) or the next word; returns the next word's index."""
    letters = word[1:]
    for at, letter in enumerate(letters):
        name = grammar.name_of(f"-{letter}")
        if name is None:
            return index  # not this CLI's: the rest cannot be read as its options
        if name in grammar.valued:
            rest = letters[at + 1 :].removeprefix("=")
            if rest:
                out.append((name, rest, f"-{letter}"))
                return index
            value = _value_at(flags, index)
            out.append((name, value or "", f"-{letter}"))
            return index + (value is not None)
        out.append((name, "", f"-{letter}"))
    return index


def _value_at(flags: Sequence[str], index: int) -> str | None:
    """The word at `index` as an option's value; None past the end, or when it is itself an
    option (read as one, a grant behind it is seen whichever way the CLI reads it)."""
    if index >= len(flags) or (flags[index].startswith("-") and len(flags[index]) > 1):
        return None
    return flags[index]
