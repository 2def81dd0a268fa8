"""What the person can do next with a project, said only with the verbs that work at its step.

A hint naming a verb the project refuses (override after a Phase 1 halt, resume after
terminate, `continue` on a finished project) sends a newcomer round in circles.
"""

from __future__ import annotations

from thoughtforge.core.state import Status
from thoughtforge.models import HaltReason, Phase, halt_verbs


def after_halt(project_id: str, status: Status) -> str:
    """The line after `Halted (reason) in phase.`: the decisions it takes, or that none is left."""
    verbs = halt_verbs(status.halt_reason, status.halted_from)
    if not verbs:
        return "It was terminated: there is nothing to resume."
    return f"Next: thoughtforge {'|'.join(verbs)} {project_id}"


def no_chat_turn(project_id: str, status: Status, action: str) -> str | None:
    """Why a chat verb (say, distill, realign, confirm) has nothing to answer on a finished or
    halted project; None when a run could still take it."""
    if status.phase is Phase.DONE:
        return (
            f"{project_id} is done: nothing waits for '{action}'. "
            f"`thoughtforge status {project_id}` shows its deliverable."
        )
    if status.phase is not Phase.HALTED:
        return None
    if status.halt_reason is HaltReason.HUMAN_TERMINATED:
        return f"{project_id} was terminated: nothing waits for '{action}', and it cannot resume."
    verbs = "|".join(halt_verbs(status.halt_reason, status.halted_from))
    return (
        f"{project_id} is halted ({status.halt_reason}): it waits for a decision, not a chat "
        f"turn. Decide with `thoughtforge {verbs} {project_id}`."
    )


def start_command(project_id: str, phase: Phase) -> str:
    """The command that is the page's Start for a resting project (none for a done one)."""
    if phase is Phase.POLISHING:
        return f"Start it: `thoughtforge polish {project_id}`."
    if phase is Phase.DONE:
        return f"Revise it: `thoughtforge revise {project_id} CHANGE`."
    if phase is Phase.HALTED:
        return ""
    return f"Start it: `thoughtforge continue {project_id}`."
