"""Which command-line switches let Claude Code, Codex or Gemini CLI act, not only answer: edit
files, run commands, reach past the working directory, or skip their permission checks.

A person's own `flags` are read with this before a text step (`invoke`) and by the plan-mode
safety rules (`phases.safety`): such a switch on a text step is refused before any call. A
settings file passed by flag (Claude's `--settings`) counts when it grants permissions.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

_TOOL_SWITCHES = frozenset(
    {
        # Claude Code
        "--dangerously-skip-permissions",
        "--allow-dangerously-skip-permissions",
        "--allowedTools",
        "--allowed-tools",  # also Gemini CLI's
        "--add-dir",  # also Codex's
        # Codex
        "--full-auto",
        "--approve-for-me",
        "--dangerously-bypass-approvals-and-sandbox",
        "--dangerously-bypass-hook-trust",
        "--trust",
        # Gemini CLI
        "--yolo",
        "-y",
        "--include-directories",
        "--policy",
        "--admin-policy",
    }
)
_TEXT_ONLY_MODES = {
    "--permission-mode": frozenset({"default", "plan", "manual", "dontAsk"}),
    "--approval-mode": frozenset({"default", "plan"}),
}
_SANDBOX_OPTIONS = frozenset({"--sandbox", "-s"})
_CONFIG_OPTIONS = frozenset({"-c", "--config"})
_WRITABLE_SANDBOXES = frozenset({"workspace-write", "danger-full-access"})
_SETTINGS_OPTION = "--settings"
_MAX_SETTINGS_BYTES = 1_000_000


def tool_granting_flags(flags: Sequence[str]) -> list[str]:
    """The flags (with their values) that give an agent tools or autonomy, for the refusal text."""
    granted: list[str] = []
    for index, flag in enumerate(flags):
        name, equals, inline_value = flag.partition("=")
        value = inline_value if equals else (flags[index + 1] if index + 1 < len(flags) else "")
        if name in _TOOL_SWITCHES:
            granted.append(flag)
        elif _value_grants_tools(name, value):
            granted.append(f"{name} {value}".strip())
    return granted


def _value_grants_tools(option: str, value: str) -> bool:
    if option in _TEXT_ONLY_MODES:
        return value not in _TEXT_ONLY_MODES[option]
    if option in _SANDBOX_OPTIONS:
        return value in _WRITABLE_SANDBOXES
    if option == _SETTINGS_OPTION:
        return _settings_grant(value)
    return option in _CONFIG_OPTIONS and _sets_writable_sandbox(value)


def _sets_writable_sandbox(override: str) -> bool:
    """Codex also takes the sandbox as a config override: `-c sandbox_mode="workspace-write"`."""
    key, _, value = override.partition("=")
    return key.strip() == "sandbox_mode" and value.strip().strip("\"'") in _WRITABLE_SANDBOXES


def _settings_grant(value: str) -> bool:
    """Claude's `--settings` takes JSON or a file of it; one that allows tools, sets a mode
    that acts, or adds directories grants. One that cannot be read counts as granting."""
    text = value
    if not value.lstrip().startswith("{"):
        try:
            with Path(value).expanduser().open("rb") as file:
                text = file.read(_MAX_SETTINGS_BYTES).decode("utf-8", errors="replace")
        except OSError:
            return True
    try:
        settings: Any = json.loads(text)
    except ValueError:
        return True
    permissions = settings.get("permissions") if isinstance(settings, dict) else None
    if not isinstance(permissions, dict):
        return False
    mode = permissions.get("defaultMode")
    acting_mode = mode is not None and mode not in _TEXT_ONLY_MODES["--permission-mode"]
    return bool(permissions.get("allow") or permissions.get("additionalDirectories") or acting_mode)
