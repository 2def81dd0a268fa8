"""The agent CLIs ThoughtForge drives, one module each behind `CliKind`: a new CLI is its module,
its line here and its name in `config.agents.CliProfileName` (a test holds the two equal).

`normalise` reads any command's output by its form: a plain command's text, or a CLI's JSON.
"""

from __future__ import annotations

from thoughtforge.adapters.agents.kinds.claude import CLAUDE
from thoughtforge.adapters.agents.kinds.cli_kind import CliKind, ReadOutput
from thoughtforge.adapters.agents.kinds.codex import CODEX
from thoughtforge.adapters.agents.kinds.gemini import GEMINI
from thoughtforge.adapters.agents.output import plain_text

CLI_KINDS: dict[str, CliKind] = {kind.name: kind for kind in (CLAUDE, CODEX, GEMINI)}
"""Every CLI by the name a config entry's `profile` gives it."""

_READERS: dict[str, ReadOutput] = {
    "text": plain_text,
    **{form: read for kind in CLI_KINDS.values() for form, read in kind.readers.items()},
}


def cli_names() -> str:
    """The registered CLIs in words, for a message that says what a `profile` may be."""
    *first, last = CLI_KINDS
    return f"{', '.join(first)} or {last}" if first else last


def cli_kind(name: str | None) -> CliKind | None:
    return None if name is None else CLI_KINDS[name]


def normalise(output_form: str, stdout: str, stderr: str = "", writes: bool = False) -> str:
    """The reply inside a command's output, by its output form (`AgentOutputError` if none)."""
    return _READERS[output_form](stdout, stderr, writes)
