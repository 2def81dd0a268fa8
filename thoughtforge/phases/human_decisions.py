"""The person's decisions, applied to the files: resume, override or terminate a halted
project, or answer a stuck build (`provide_input`); and at any human step, terminate it or
switch its agent. (The catalogue's person-actions are the doors' words for these.)

Applied to the files directly, so it works the same whether the decision arrives as a Prefect
`RunInput` to a paused flow or from the CLI when no run is waiting. Which decisions a halt takes
is the catalogue's (`catalogue.halt_decisions`), as at every door.
"""

from __future__ import annotations

from thoughtforge.adapters.agents import why_unavailable
from thoughtforge.catalogue import HaltChoice, halt_decisions
from thoughtforge.config import Config
from thoughtforge.core.hooks import TransitionHooks
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import log_event
from thoughtforge.core.staging import commit_own, mark_polished
from thoughtforge.core.state import Status, read_polish_state, utc_now, write_status
from thoughtforge.core.transition import transition
from thoughtforge.errors import StateFileError, ThoughtForgeError, TransitionError
from thoughtforge.models import HaltReason, Phase
from thoughtforge.phases.chat import add_human_message, notice
from thoughtforge.phases.polish import polish_log


def apply(project: Project, action: HaltChoice, hooks: TransitionHooks | None = None) -> Status:
    """Act on a halted project: resume returns it to the phase it halted in (a polish loop logs
    the resumption), override accepts a polish loop's deliverable (done) or a plan the
    completeness gate refused (the build goes on), terminate ends it, halted or not."""
    if action == "terminate":
        return terminate(project, hooks)
    status = _halted(project)
    origin = status.halted_from or Phase.POLISHING
    if status.halt_reason is HaltReason.PLAN_INCOMPLETE:  # the gate refused the plan
        if action != "override":
            raise TransitionError(
                f"a {status.halt_reason} halt takes override (build from the plan as it is) or "
                "terminate; resuming would ask the gate the same question"
            )
        notice(project, "The human overrode the Plan Completeness Gate.", Phase.BUILDING)
        summary = f"Project '{status.project_name or project.id}' — plan accepted by the human."
        return transition(project, Phase.BUILDING, summary=summary, hooks=hooks)
    if action == "override":
        if "override" not in halt_decisions(status.halt_reason, status.halted_from):
            where = status.halted_from or "a phase not recorded"
            raise TransitionError(
                f"override accepts the deliverable of the polish loop, not of '{where}'"
            )
        done = transition(
            project, Phase.DONE, summary=_override_summary(project, status), hooks=hooks
        )
        commit_own(project.dir, "Done (deliverable accepted as it is)")
        mark_polished(project.dir)
        return done
    if origin is Phase.POLISHING:
        _log_resume(project, status)
    return transition(project, origin, hooks=hooks)


def terminate(project: Project, hooks: TransitionHooks | None = None) -> Status:
    """Stop the project for good, from any phase but done: the person may give up at any step."""
    status = project.status()
    if status.phase is Phase.DONE:
        raise TransitionError(f"project {project.id} is done; there is nothing to terminate")
    if status.halt_reason is HaltReason.HUMAN_TERMINATED:
        raise TransitionError(f"project {project.id} was already terminated")
    return transition(project, Phase.HALTED, halt_reason=HaltReason.HUMAN_TERMINATED, hooks=hooks)


def switch_agent(project: Project, config: Config, agent: str) -> Status:
    """Make `agent` the project's agent from its next call on (a halt for an answer a small model
    could not give is often fixed by a larger one). Refused for an agent that is not configured,
    cannot be called from here, or a project that is finished."""
    config.agent(agent)  # a name not in agents.available is a ConfigError naming the choices
    why = why_unavailable(config, agent)
    if why is not None:
        raise ThoughtForgeError(f"agent '{agent}' cannot run: {why}")
    status = project.status()
    if status.phase is Phase.DONE or status.halt_reason is HaltReason.HUMAN_TERMINATED:
        raise TransitionError(f"project {project.id} is {status.phase}; no agent will be called")
    if status.agent == agent:
        return status
    switched = status.model_copy(update={"agent": agent, "updated_at": utc_now()})
    write_status(project.dir, switched)
    log_event(project.dir, "agent_switched", agent_from=status.agent, agent_to=agent)
    notice(project, f"The agent is now '{agent}' (was '{status.agent}').")
    return switched


def provide_input(project: Project, message: str, hooks: TransitionHooks | None = None) -> Status:
    """Answer a stuck or incomplete build: the message goes into the chat, where the builder
    reads it as guidance, and the project returns to `building`."""
    if not message.strip():
        raise ThoughtForgeError("the answer is empty: say what the builder should do")
    status = project.status()
    takes_input = "provide_input" in halt_decisions(status.halt_reason, status.halted_from)
    if status.phase is not Phase.HALTED or not takes_input:
        raise TransitionError(f"project {project.id} is not waiting for an answer ({status.phase})")
    add_human_message(project, message)
    return transition(project, Phase.BUILDING, hooks=hooks)


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
