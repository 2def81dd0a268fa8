"""What the person can do next with a project, said only with the verbs that work at its step.

A hint naming a verb the project refuses (override after a Phase 1 halt, resume after
terminate, `continue` on a finished project) sends a newcomer round in circles.
"""

from __future__ import annotations

from collections.abc import Iterable

from thoughtforge.catalogue import ACTIONS, cli_verbs, halt_decisions
from thoughtforge.models import HaltReason, Phase


def after_halt(project_id: str, reason: HaltReason | None, halted_from: Phase | None) -> str:
    """The line after `Halted (reason) in phase.`: the decisions it takes, or that none is left."""
    verbs = cli_verbs(halt_decisions(reason, halted_from))
    if not verbs:
        return "It was terminated: there is nothing to resume."
    return f"Next: thoughtforge {verbs} {project_id}"


def offered_commands(project_id: str, phase: Phase, actions: Iterable[str]) -> str:
    """The line after a refusal: the commands that do what the page's composer offers now (its
    `actions`, by name); empty when it offers nothing."""
    verbs: list[str] = []
    for action in actions:
        verb = _start_verb(phase) if action == "start" else ACTIONS[action].cli_verb
        if verb not in verbs:
            verbs.append(verb)
    return f"Next: thoughtforge {'|'.join(verbs)} {project_id}" if verbs else ""


def _start_verb(phase: Phase) -> str:
    return "polish" if phase is Phase.POLISHING else "continue"


def start_command(project_id: str, phase: Phase) -> str:
    """The command that is the page's Start for an idle project (none for a done one)."""
    if phase is Phase.POLISHING:
        return f"Start it: `thoughtforge polish {project_id}`."
    if phase is Phase.DONE:
        return f"Revise it: `thoughtforge revise {project_id} CHANGE`."
    if phase is Phase.HALTED:
        return ""
    return f"Start it: `thoughtforge continue {project_id}`."
