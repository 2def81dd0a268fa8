"""What ThoughtForge knows of one agent CLI it drives headless, as one typed interface: each CLI
(`claude`, `codex`, `gemini`) is one module that fills it in, so adding a CLI is that module, its
line in the registry (`kinds`) and in the config's list of names.

A kind holds its switches by the step (text only, or edits in the project and its test
command), how its own parser reads flags (`grammar`, for the plan-mode safety check), how it
prints its reply, usage, API errors and refusals (`read`), what it retried and refused inside
the call (`inside`), its own retries of an overloaded
API bounded by the call's deadline (`retry_environment`), its login and the files it keeps.
The person's own `flags` follow the kind's. Kinds are for the versions named in
`tested_with`, whose switches the tests drive.
"""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from thoughtforge.adapters.agents.flag_grammar import Grammar

ReadOutput = Callable[[str, str, bool], str]
"""Given stdout, stderr and whether the step may write: the reply."""


class CliKind(BaseModel, ABC):
    """One agent CLI: its switches, its output, its login, and the tokens it adds to every call."""

    model_config = ConfigDict(frozen=True)

    name: str
    packages: tuple[str, ...]
    """Its npm packages (`npx @openai/codex`): the safety check finds the CLI behind them."""
    tested_with: str
    """The version whose switches and output this kind was measured against."""
    output: str
    """The output form its steps print (a key of `readers`)."""
    text_flags: tuple[str, ...]
    write_flags: tuple[str, ...]
    """Before the test command's own grant (`test_grant`)."""
    held_write_flags: tuple[str, ...] | None = None
    """The write switches when ThoughtForge's own boundary holds the call's writes, for a CLI
    whose sandbox cannot run inside it; None: `write_flags` as they are."""
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

    grammar: ClassVar[Grammar]
    """How the CLI's own parser reads its flags, and which of them grant tools."""
    readers: ClassVar[dict[str, ReadOutput]]
    """Each output form the CLI prints, read into its reply (`AgentOutputError` if none)."""
    retry_waits: ClassVar[tuple[float, ...]] = ()
    """The longest the CLI waits before each of its own retries of a 429 or 5xx (its backoff,
    jitter included), where a setting bounds how many it makes; empty: it bounds them itself."""

    def retry_environment(self, seconds: float, scratch: Path) -> dict[str, str]:
        """The CLI's own retry setting, so that its retries of an overloaded API end within
        `seconds` (`scratch`: the call's own folder, for a setting that must be a file)."""
        return {}

    def retries_within(self, seconds: float) -> int:
        """The most retries whose waits (`retry_waits`) take at most half of `seconds`: the
        requests themselves, and an reply when one comes, need the rest."""
        count, waited = 0, 0.0
        for wait in self.retry_waits:
            waited += wait
            if waited > seconds / 2:
                break
            count += 1
        return count

    @abstractmethod
    def test_grant(self, test_command: Sequence[str]) -> list[str]:
        """The switch that lets the agent run exactly the project's test command."""

    def inside(self, stdout: str, stderr: str) -> list[str]:
        """What happened inside the CLI during the call, for the person: each cause of its own
        retries and how many, each tool call or command it refused (`output.retried`,
        `output.refused`)."""
        return []

    def watch(self) -> Callable[[bytes], None] | None:
        """A reader of the output as it streams, which may stop the call (`StopReading`)."""
        return None

    def flags(self, test_command: Sequence[str] | None, held: bool = False) -> list[str]:
        """Text-only switches, or with a test command the write-in-the-workspace ones (`held`:
        inside ThoughtForge's write boundary)."""
        if test_command is None:
            return list(self.text_flags)
        chosen = self.held_write_flags if held and self.held_write_flags else self.write_flags
        return [*chosen, *self.test_grant(test_command)]

    def read(self, stdout: str, stderr: str, writes: bool) -> str:
        """The reply in what the CLI printed; its usage reported to the call's meter."""
        return self.readers[self.output](stdout, stderr, writes)

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

    def missing_login(self, env: Mapping[str, str]) -> str | None:
        """Why the CLI is not logged in here (no key variable set, no login file), with the
        command that fixes it; None when a login is found. A login found may still be refused
        (an expired key): `doctor --probe` tells."""
        if any(env.get(name) for name in self.key_variables):
            return None
        for place in self.login_files:
            path = _placed(place, env)
            if path is not None and path.is_file():
                return None
        return (
            f"{self.name} is not logged in (none of {', '.join(self.key_variables)} is set "
            f"and no login file): {self.login_hint}"
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
