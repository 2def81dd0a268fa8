"""Which agent CLI a command runs, and with which arguments, read through what launches it:
`env` (its options and `NAME=value` words), a shell's `-c` line, `node` with the CLI's script,
`npx` with its package. The plan-mode safety check judges those arguments (`switches`), not the
spelling of the config entry.

What cannot be read is a grant when it runs one of those CLIs: a shell line with more than one
command in it, `env -S`, and a shell script that stands in for a CLI (a wrapper named `claude`, or
one that names a blanket grant), since ThoughtForge cannot tell what it runs.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel

from thoughtforge.adapters.agents.kinds import CLI_KINDS
from thoughtforge.adapters.agents.switches import tool_granting_flags
from thoughtforge.config import CommandAgentSpec

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "fish", "busybox"})
_PACKAGES = {package: kind.name for kind in CLI_KINDS.values() for package in kind.packages}
_SHELL_SYNTAX = re.compile(r"[;&|<>`$(){}\n]")
_BLANKET = ("--dangerously-skip-permissions", "--yolo", "danger-full-access", "bypassPermissions")
"""Blanket grants a script may pass to a CLI."""
_SHEBANG_BYTES = 256
_MAX_SCRIPT_BYTES = 1_000_000


class Launch(BaseModel):
    """What a command line comes to: the CLI it runs (None: not one ThoughtForge knows), the
    arguments that CLI gets, and what could not be read (a grant in itself)."""

    cli: str | None
    args: list[str]
    unreadable: list[str] = []


def grants_of(spec: CommandAgentSpec) -> list[str]:
    """What the entry's command and own flags grant, in words for the refusal: the flags read
    as the CLI they reach reads them, and whatever on the way cannot be read."""
    launch = launch_of(spec.command, spec.flags, spec.profile)
    return [*launch.unreadable, *tool_granting_flags(launch.args, launch.cli)]


def launch_of(command: str, flags: Sequence[str], profile: str | None = None) -> Launch:
    """`command flags…` read through its launchers; `profile` names the CLI when given."""
    words = [command, *flags]
    while words:
        name = Path(words[0]).name
        if name == "env":
            rest = _after_env(words[1:])
            if isinstance(rest, str):
                return Launch(
                    cli=profile, args=[], unreadable=[rest] if _names_a_cli(words) else []
                )
            words = rest
        elif name in SHELLS:
            line = _shell_line(words[1:])
            if line is None:
                script = next((word for word in words[1:] if not word.startswith("-")), "")
                text = _script_text(script, shebang=False) if script else None
                runs_a_cli = text is not None and _names_a_cli(text.split())
                why = f"a shell runs the script {script}, which runs an agent CLI"
                return Launch(cli=profile, args=[], unreadable=[why] if runs_a_cli else [])
            if _SHELL_SYNTAX.search(line):
                why = f"a shell runs it: {shlex.join(words)}"
                return Launch(cli=profile, args=[], unreadable=[why] if _names_a_cli(words) else [])
            words = shlex.split(line)
        elif name in ("node", "nodejs") and len(words) > 1:
            script = next((w for w in words[1:] if not w.startswith("-")), "")
            cli = _cli_named_in(script)
            return Launch(
                cli=profile or cli, args=words[words.index(script) + 1 :] if script else []
            )
        elif name in ("npx", "pnpx", "bunx") and len(words) > 1:
            package = next((w for w in words[1:] if not w.startswith("-")), "")
            cli = _PACKAGES.get(re.sub(r"(?<=.)@[^/]*$", "", package))
            return Launch(
                cli=profile or cli, args=words[words.index(package) + 1 :] if package else []
            )
        else:
            break
    if not words:
        return Launch(cli=profile, args=[])
    named = Path(words[0]).name
    cli = profile or _named(named)
    wrapper = _wrapper(words[0], named)
    return Launch(cli=cli, args=words[1:], unreadable=[wrapper] if wrapper else [])


def _after_env(words: list[str]) -> list[str] | str:
    """The command `env` runs; a string when it cannot be read."""
    index = 0
    while index < len(words):
        word = words[index]
        if word in ("-S", "--split-string") or word.startswith(("-S", "--split-string=")):
            return f"env {word} builds a command line ThoughtForge cannot read"
        if word in ("-u", "--unset", "-C", "--chdir"):
            index += 2
        elif word.startswith("-") or ("=" in word and not word.startswith("=")):
            index += 1
        else:
            return words[index:]
    return []


def _shell_line(words: list[str]) -> str | None:
    """The line a shell's `-c` runs (`-c LINE`, `-ec LINE`), or None (a script file)."""
    for index, word in enumerate(words):
        if word.startswith("-") and not word.startswith("--") and "c" in word[1:]:
            return words[index + 1] if index + 1 < len(words) else ""
        if not word.startswith("-"):
            return None
    return None


def _names_a_cli(words: Sequence[str]) -> bool:
    """Whether a line ThoughtForge cannot read runs one of the CLIs it judges (another agent's
    line, a pipeline into `llm` say, is no CLI's, and its flags are nobody's to judge)."""
    said = re.findall(r"[\w@./-]+", " ".join(words))
    return any(Path(word).name in CLI_KINDS or word in _PACKAGES for word in said)


def _cli_named_in(script: str) -> str | None:
    parts = Path(script).parts
    for package, cli in _PACKAGES.items():
        if package.split("/")[-1] in parts:
            return cli
    return _named(Path(script).stem)


def _named(name: str) -> str | None:
    return name if name in CLI_KINDS else None


def _wrapper(command: str, name: str) -> str | None:
    """Why `command` cannot be read, when it is a shell script standing in for a CLI, or one
    that names a CLI's blanket grant."""
    found = shutil.which(command) if os.sep not in command else command
    text = _script_text(found, shebang=True) if found else None
    if text is None:
        return None
    if name in CLI_KINDS:
        return (
            f"{found} is a shell script, not the {name} CLI: ThoughtForge cannot tell what it runs"
        )
    named = [grant for grant in _BLANKET if grant in text]
    if named:
        return f"the script {found} runs an agent with {', '.join(named)}"
    return None


def _script_text(path: str, *, shebang: bool) -> str | None:
    """A script's text (its first megabyte); None when it is no file, or (with `shebang`) no
    shell script."""
    if not Path(path).is_file():
        return None
    try:
        with Path(path).open("rb") as file:
            head = file.read(_SHEBANG_BYTES)
            if shebang and not _is_shell_script(head):
                return None
            return (head + file.read(_MAX_SCRIPT_BYTES)).decode("utf-8", errors="replace")
    except OSError:
        return None


def _is_shell_script(head: bytes) -> bool:
    if not head.startswith(b"#!"):
        return False
    line = head[2:].split(b"\n", 1)[0].decode("utf-8", errors="replace").split()
    if not line:
        return False
    interpreter = Path(line[0]).name
    if interpreter == "env" and len(line) > 1:
        interpreter = Path(line[-1]).name
    return interpreter in SHELLS
