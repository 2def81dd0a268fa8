"""Which command-line switches let an agent CLI act, not only reply: edit files, run commands,
reach past the working directory, or skip their permission checks.

The flags are read the way each CLI's own parser reads them (its kind's `grammar`), so a grant
is found however it is spelled; what a flag's value holds is judged too (Claude's `--settings`
JSON, a Codex `-c` override outside the model's own settings). A flag of a CLI that ThoughtForge
does not know is judged by every CLI's grammar at once. `launch.py` finds which CLI a command
runs (through `env`, a shell, `node`).

A person's own `flags` are read with this before a text step (`invoke`) and by the plan-mode
safety rules (`phases.safety`): a grant on a text step is refused before any call.
"""

from __future__ import annotations

from collections.abc import Sequence

from thoughtforge.adapters.agents.flag_grammar import granting
from thoughtforge.adapters.agents.kinds import CLI_KINDS


def tool_granting_flags(flags: Sequence[str], cli: str | None = None) -> list[str]:
    """The flags (with their values) that give an agent tools or autonomy, read as `cli` reads
    them (as every known CLI would, when unknown), for the refusal text."""
    kinds = [CLI_KINDS[cli]] if cli is not None else list(CLI_KINDS.values())
    found: list[str] = []
    for kind in kinds:
        found += [said for said in granting(kind.grammar, flags) if said not in found]
    return found
