"""Phase 3 as a Prefect flow: each plan section is a named task, progress is an artifact, a stuck
builder waits for the human's input, and a built plan goes straight on to the polish flow."""

from __future__ import annotations

from collections.abc import Callable

from prefect import flow
from prefect.artifacts import create_markdown_artifact

from thoughtforge.config import Config
from thoughtforge.core import Project, Status, hold_run_lock, load_project
from thoughtforge.flows.human_input import StuckDecision, chat_key, wait_for_human
from thoughtforge.flows.polish import polish_flow
from thoughtforge.flows.task_runner import as_task
from thoughtforge.models import INPUT_HALTS, Phase
from thoughtforge.phases import halt_actions, latest_ai_message, notice
from thoughtforge.plugins.plan import PlanBuilder, SectionProgress


@flow(name="thoughtforge-build", flow_run_name="build-{project_id}", log_prints=True)
def build_flow(project_id: str, config_path: str | None = None, auto_confirm: bool = False) -> str:
    """Build (or resume building) the deliverable, then polish it; returns the phase left in.

    Without `auto_confirm`, a stuck builder waits for provide_input / terminate (from the Prefect
    UI or the CLI); a run that re-enters while the project waits meets the same wait again.
    """
    config, project = load_project(project_id, config_path)
    with hold_run_lock(project):
        _build_until_settled(project, config, auto_confirm)
        if project.status().phase is Phase.POLISHING:
            polish_flow(project_id, config_path, wait_for_human=False)
    return project.status().phase.value


def _build_until_settled(project: Project, config: Config, auto_confirm: bool) -> None:
    while True:
        status = project.status()
        if status.phase is Phase.BUILDING:
            builder = PlanBuilder(project, config, runner=as_task, on_progress=_publisher(project))
            print(builder.run().reason)
            continue
        if auto_confirm or not _awaits_input(status):
            return
        decision = wait_for_human(StuckDecision, _stuck_prompt(project), key=chat_key(project))
        _apply(project, decision)


def _awaits_input(status: Status) -> bool:
    return (
        status.phase is Phase.HALTED
        and status.halted_from is Phase.BUILDING
        and status.halt_reason in INPUT_HALTS
    )


def _apply(project: Project, decision: StuckDecision) -> None:
    """The human's input goes into the chat, where the builder reads it as guidance."""
    if decision.action == "terminate":
        halt_actions.apply(project, "terminate")
    elif not decision.message.strip():
        notice(project, "Provide Input needs a message: what should the builder do?")
    else:
        halt_actions.provide_input(project, decision.message)


def _stuck_prompt(project: Project) -> str:
    return (
        f"### The plan build needs you\n\n{latest_ai_message(project)}\n\n"
        "- **provide_input**: answer in the message; the builder asks the section again with it\n"
        "- **terminate**: stop this project for good\n"
    )


def _publisher(project: Project) -> Callable[[list[SectionProgress]], None]:
    def publish(progress: list[SectionProgress]) -> None:
        rows = "\n".join(
            f"| {p.heading} | {p.filled}/{p.slots} | {'yes' if p.filled == p.slots else 'no'} |"
            for p in progress
        )
        done = sum(p.filled == p.slots for p in progress)
        create_markdown_artifact(
            key=f"{project.id}-build",
            markdown=(
                f"## Plan build: {done}/{len(progress)} sections\n\n"
                f"| section | slots filled | done |\n| --- | --- | --- |\n{rows}\n"
            ),
            description=f"Phase 3 progress of {project.id}",
        )

    return publish
