"""Every `thoughtforge` command the README and the docs print names a command this install has,
with options that command takes (its `--help` lists each): a newcomer who pastes one is never
told the command does not exist. What the commands then do is the other tests' business (the
first command's, `tests/flows/test_pipeline.py`; `up`'s and `run-deployment`'s in a tool install,
`tests/stack/test_installed.py`)."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from functools import cache

import pytest

from tests.conftest import REPO_ROOT

DOCUMENTS = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(r"^```(?:sh|bash|console)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def printed_commands() -> list[tuple[str, list[str]]]:
    found = []
    for document in DOCUMENTS:
        for block in _BLOCK.findall(document.read_text(encoding="utf-8")):
            for line in block.splitlines():
                for part in line.split("&&"):
                    words = shlex.split(part, comments=True)
                    if words and words[0].endswith("thoughtforge"):
                        found.append((document.name, words[1:]))
    return found


@cache
def _help(command: str) -> str:
    shown = subprocess.run(
        [sys.executable, "-m", "thoughtforge", command, "--help"],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "COLUMNS": "300"},
        timeout=120,
    )
    assert shown.returncode == 0, f"`thoughtforge {command}`: {shown.stderr}"
    return shown.stdout


def test_the_readme_prints_commands() -> None:
    commands = [words[0] for name, words in printed_commands() if name == "README.md" and words]
    assert {"run", "up", "down", "status", "run-deployment", "revise"} <= set(commands)


@pytest.mark.parametrize(
    ("document", "words"), printed_commands(), ids=lambda value: " ".join(value)[:60]
)
def test_a_printed_command_exists_with_the_options_it_uses(document: str, words: list[str]) -> None:
    while words[:1] and words[0] in ("--config", "-c", "--debug"):  # the root's own options
        words = words[1 if words[0] == "--debug" else 2 :]
    options = [word.split("=", 1)[0] for word in words if word.startswith("--")]
    command = next((word for word in words if not word.startswith("-")), None)
    if command is None:  # `thoughtforge --version`
        return
    shown = _help(command)
    for option in options:
        assert option in shown, f"{document}: `thoughtforge {command}` has no {option}"
