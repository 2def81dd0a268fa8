"""How ThoughtForge drives each agent CLI it knows (Claude Code, Codex, Gemini CLI) headless.

One entry serves both kinds of step. A text step (every plan step; intake, spec and review in code
mode) runs with the CLI's read-only switches, stated explicitly so a write permission in the
CLI's own settings file does not apply. A code build or fix step runs with the narrowest grant
that lets the agent edit files in its working directory (the project) and run the project's test
command: never a blanket grant, and nothing that refuses to run as root. The person's own `flags`
follow the profile's. Each profile reads the CLI's structured output (answer, usage, refusals)
and knows the tokens the CLI adds to every call (its system prompt and tools), which the window
check and the budget's estimate count.

Profiles are for the versions named in `TESTED_WITH`, whose switches the tests drive.
"""

from __future__ import annotations

import contextlib
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from thoughtforge.config.agents import CliProfileName

OutputForm = Literal["text", "claude_json", "claude_stream", "codex_jsonl", "gemini_json"]

TESTED_WITH = {"claude": "2.1.328", "codex": "0.171.0", "gemini": "0.61.0"}
"""The CLI versions whose switches and output these profiles were measured against."""

CLAUDE_EDIT_TOOLS = "Write,Edit,NotebookEdit,Bash"


class CliProfile(BaseModel):
    """A CLI's switches for text steps and for code build/fix steps, its output form, and the
    tokens it adds to every call."""

    model_config = ConfigDict(frozen=True)

    name: CliProfileName
    output: OutputForm
    text_flags: tuple[str, ...]
    write_flags: tuple[str, ...]
    """Before the test command's own grant (`test_grant`)."""
    overhead_tokens: int
    """The CLI's own system prompt and tool definitions, sent with every request: measured
    against the fake model API in the tests (`tests/agent_clis`), which keeps it current."""
    login_hint: str
    """What to run (or set) when the CLI is not logged in."""
    key_variables: tuple[str, ...]
    """Environment variables any one of which logs the CLI in."""
    login_files: tuple[str, ...]
    """Files (under the home folder, or `$CODEX_HOME`) a login leaves."""
    own_files: tuple[str, ...]
    """Where the CLI keeps its sessions, logs and settings, as `login_files` names them (a
    folder ends with `/`): it does not start unless it may write there (`write_boundary`)."""
    held_write_flags: tuple[str, ...] | None = None
    """The write switches when ThoughtForge's own boundary holds the call's writes, for a CLI
    whose sandbox cannot run inside it; None: `write_flags` as they are."""

    def flags(self, test_command: Sequence[str] | None, held: bool = False) -> list[str]:
        """Text-only switches, or with a test command the write-in-the-workspace ones (`held`:
        inside ThoughtForge's write boundary)."""
        if test_command is None:
            return list(self.text_flags)
        chosen = self.held_write_flags if held and self.held_write_flags else self.write_flags
        return [*chosen, *self.test_grant(test_command)]

    def own_paths(self, env: Mapping[str, str]) -> tuple[Path, ...]:
        """`own_files` in this environment (those it cannot place left out), a folder made
        where it is missing: a boundary can hold writes only beneath what exists."""
        paths = []
        for place in self.own_files:
            path = _placed(place.rstrip("/"), env)
            if path is None:
                continue
            if place.endswith("/"):
                with contextlib.suppress(OSError):  # then the CLI says what it cannot write
                    path.mkdir(parents=True, exist_ok=True)
            paths.append(path)
        return tuple(paths)

    def test_grant(self, test_command: Sequence[str]) -> list[str]:
        """The switch that lets the agent run exactly the project's test command."""
        command = shlex.join(test_command)
        if self.name == "claude":
            return ["--allowedTools", f"Bash({command}:*)"]
        if self.name == "gemini":
            return ["--allowed-tools", f"run_shell_command({command})"]
        return []  # codex's workspace-write sandbox runs commands in the project already


PROFILES: dict[str, CliProfile] = {
    "claude": CliProfile(
        name="claude",
        output="claude_stream",
        # -p reads the prompt on stdin; stream-json shows its retries as they happen (a refused
        # login stops the call); the edit and shell tools are removed for text steps.
        text_flags=(
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--permission-mode",
            "default",
            "--disallowedTools",
            CLAUDE_EDIT_TOOLS,
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
    ),
    "codex": CliProfile(
        name="codex",
        output="codex_jsonl",
        # `-` reads the prompt on stdin; --json prints events with each turn's usage.
        text_flags=("exec", "--json", "--sandbox", "read-only", "-"),
        # workspace-write: writes and commands inside the project folder, no network; without
        # /tmp and $TMPDIR, which it adds by default (a project under /tmp: its neighbours).
        write_flags=(
            "exec",
            "--json",
            "--sandbox",
            "workspace-write",
            "-c",
            "sandbox_workspace_write.exclude_slash_tmp=true",
            "-c",
            "sandbox_workspace_write.exclude_tmpdir_env_var=true",
            "-",
        ),
        # Its sandbox (bubblewrap) cannot mount inside Landlock, and its legacy Landlock mode
        # refuses workspace-write: ThoughtForge's boundary alone holds the writes.
        held_write_flags=("exec", "--json", "--sandbox", "danger-full-access", "-"),
        overhead_tokens=16_000,
        login_hint="run `codex login`, or set CODEX_API_KEY",
        key_variables=("CODEX_API_KEY", "OPENAI_API_KEY"),
        login_files=("$CODEX_HOME/auth.json", "~/.codex/auth.json"),
        own_files=("$CODEX_HOME/", "~/.codex/"),
    ),
    "gemini": CliProfile(
        name="gemini",
        output="gemini_json",
        # -p "" runs headless with the prompt from stdin; --skip-trust trusts the project
        # folder for this call only (headless gemini refuses an untrusted folder).
        text_flags=("--skip-trust", "-p", "", "-o", "json", "--approval-mode", "default"),
        # auto_edit: its edit tools only; the shell only for the test command (test_grant).
        write_flags=("--skip-trust", "-p", "", "-o", "json", "--approval-mode", "auto_edit"),
        overhead_tokens=11_200,
        login_hint="run `gemini` once and log in, or set GEMINI_API_KEY",
        key_variables=(
            "GEMINI_API_KEY",
            "GOOGLE_API_KEY",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "GOOGLE_GENAI_USE_VERTEXAI",
        ),
        login_files=("~/.gemini/oauth_creds.json",),
        own_files=("~/.gemini/",),
    ),
}


def missing_login(profile: CliProfile, env: Mapping[str, str]) -> str | None:
    """Why the CLI is not logged in here (no key variable set, no login file), with the
    command that fixes it; None when a login is found. A login found may still be refused
    (an expired key): `doctor --probe` tells."""
    if any(env.get(name) for name in profile.key_variables):
        return None
    for place in profile.login_files:
        path = _placed(place, env)
        if path is not None and path.is_file():
            return None
    return (
        f"{profile.name} is not logged in (none of {', '.join(profile.key_variables)} is set "
        f"and no login file): {profile.login_hint}"
    )


def _placed(place: str, env: Mapping[str, str]) -> Path | None:
    """`~/x` under HOME, `$NAME/x` under that variable; None when it is not set."""
    if place.startswith("~/"):
        home = env.get("HOME")
        return Path(home) / place.removeprefix("~/") if home else None
    if place.startswith("$"):
        variable, _, rest = place[1:].partition("/")
        base = env.get(variable)
        return (Path(base) / rest if rest else Path(base)) if base else None
    return Path(place)


def profile_of(name: str | None) -> CliProfile | None:
    return None if name is None else PROFILES[name]
