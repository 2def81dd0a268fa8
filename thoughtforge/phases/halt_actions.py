"""What the human can do with a halted project: resume, override or terminate.

Applied to the files directly, so it works the same whether the decision arrives as a Prefect
`RunInput` to a paused flow or from the CLI when no run is waiting.
"""

from __future__ import annotations

from typing import Literal

from thoughtforge import polish_log
from thoughtforge.errors import StateFileError, TransitionError
from thoughtforge.models import HaltReason, Phase
from thoughtforge.project import Project
from thoughtforge.state import Status, read_polish_state, utc_now
from thoughtforge.transition import TransitionHooks, transition

Action = Literal["resume", "override", "terminate"]


def apply(project: Project, action: Action, hooks: TransitionHooks | None = None) -> Status:
    status = _halted(project)
    if action == "terminate":
        return transition(
            project, Phase.HALTED, halt_reason=HaltReason.HUMAN_TERMINATED, hooks=hooks
        )
    origin = status.halted_from or Phase.POLISHING
    if action == "override":
        if origin is not Phase.POLISHING:
            raise TransitionError(
                f"override accepts the deliverable of the polish loop, not of '{origin}'"
            )
        return transition(
            project, Phase.DONE, summary=_override_summary(project, status), hooks=hooks
        )
    if origin is Phase.POLISHING:
        _log_resume(project, status)
    return transition(project, origin, hooks=hooks)


def _halted(project: Project) -> Status:
    status = project.status()
    if status.phase is not Phase.HALTED:
        raise TransitionError(f"project {project.id} is not halted (it is in '{status.phase}')")
    if status.halt_reason is HaltReason.HUMAN_TERMINATED:
        raise TransitionError(f"project {project.id} was terminated and cannot continue")
    return status


def _log_resume(project: Project, status: Status) -> None:
    try:
        iteration = read_polish_state(project.dir).iteration
    except StateFileError:
        iteration = 0
    entry = polish_log.resume_entry(utc_now(), str(status.halt_reason), iteration)
    polish_log.append(project.dir, entry)


def _override_summary(project: Project, status: Status) -> str:
    name = status.project_name or project.id
    return (
        f"Project '{name}' — halt ({status.halt_reason}) overridden by human; deliverable accepted."
    )
