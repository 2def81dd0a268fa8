"""Phase 3 inside a run: each plan section, code build step, test run and fix cycle is a named
task, the build's progress (as its plugin reports it) is recorded for the page and is an
artifact, a stuck builder waits for the human's input, and the pipeline takes the built
deliverable on to the polish loop."""

from __future__ import annotations

from prefect.artifacts import create_markdown_artifact

from thoughtforge.catalogue import halt_decisions
from thoughtforge.config import Config
from thoughtforge.core.build_progress import BuildProgress, recorded
from thoughtforge.core.project import Project
from thoughtforge.core.state import Status
from thoughtforge.core.waiting import clear_wait
from thoughtforge.flows.human_input import STUCK, StuckDecision, wait_for_human
from thoughtforge.flows.runtime.task_runner import as_task
from thoughtforge.models import Phase
from thoughtforge.phases import human_decisions, latest_ai_message, notice
from thoughtforge.phases.plugin_contract import ProgressListener
from thoughtforge.phases.plugin_loader import plugin_for


def run_build(project: Project, config: Config, auto_confirm: bool) -> None:
    """Build (or resume building) the deliverable; the pipeline polishes it next.

    Without `auto_confirm`, a stuck builder waits for provide_input / terminate (from the Prefect
    UI or the CLI); a run that re-enters while the project waits meets the same wait again.
    """
    while True:
        status = project.status()
        if status.phase is Phase.BUILDING:
            on_progress = recorded(project.dir, _publisher(project))
            try:
                builder = plugin_for(config, status.deliverable_type).build(
                    project, config, runner=as_task, on_progress=on_progress
                )
                print(builder.run().reason)
            finally:
                on_progress.close()
            continue
        if auto_confirm or not _awaits_input(status):
            return
        answer = wait_for_human(project, STUCK, _stuck_prompt(project))
        clear_wait(project.dir)
        _apply(project, answer.value)


def _awaits_input(status: Status) -> bool:
    return (
        status.phase is Phase.HALTED
        and status.halted_from is Phase.BUILDING
        and "provide_input" in halt_decisions(status.halt_reason, status.halted_from)
    )


def _apply(project: Project, decision: StuckDecision) -> None:
    """The human's input goes into the chat, where the builder reads it as guidance."""
    if decision.action == "terminate":
        human_decisions.apply(project, "terminate")
    elif not decision.message.strip():
        notice(project, "Provide Input needs a message: what should the builder do?")
    else:
        human_decisions.provide_input(project, decision.message)


def _stuck_prompt(project: Project) -> str:
    return (
        f"### The build needs you\n\n{latest_ai_message(project)}\n\n"
        "- **provide_input**: answer in the message; the builder tries again with it\n"
        "- **terminate**: stop this project for good\n"
    )


def _publisher(project: Project) -> ProgressListener:
    def publish(progress: BuildProgress) -> None:
        create_markdown_artifact(
            key=f"{project.id}-build",
            markdown=progress.as_markdown(),
            description=f"Phase 3 progress of {project.id}",
        )

    return publish
