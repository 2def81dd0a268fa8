"""Phase 3 inside a run: each plan section, code build step, test run and fix cycle is a named
task, a plan's progress is an artifact, a stuck builder waits for the human's input, and the
pipeline takes the built deliverable on to the polish loop."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from prefect.artifacts import create_markdown_artifact

from thoughtforge.config import Config
from thoughtforge.core import Project, Status, clear_wait
from thoughtforge.flows.human_input import STUCK, StuckDecision, wait_for_human
from thoughtforge.flows.task_runner import as_task
from thoughtforge.models import INPUT_HALTS, DeliverableType, Phase
from thoughtforge.phases import halt_actions, latest_ai_message, notice

if TYPE_CHECKING:
    from thoughtforge.plugins.code.builder import CodeBuilder
    from thoughtforge.plugins.plan import PlanBuilder, SectionProgress


def run_build(project: Project, config: Config, auto_confirm: bool) -> None:
    """Build (or resume building) the deliverable; the pipeline polishes it next.

    Without `auto_confirm`, a stuck builder waits for provide_input / terminate (from the Prefect
    UI or the CLI); a run that re-enters while the project waits meets the same wait again.
    """
    while True:
        status = project.status()
        if status.phase is Phase.BUILDING:
            print(_builder(project, config, status).run().reason)
            continue
        if auto_confirm or not _awaits_input(status):
            return
        answer = wait_for_human(project, STUCK, _stuck_prompt(project))
        clear_wait(project.dir)
        _apply(project, answer.value)


def _builder(project: Project, config: Config, status: Status) -> PlanBuilder | CodeBuilder:
    """Imported here: each flow process imports this module, and most build neither (a wait
    re-entered, a polish); the builders bring 50 ms of models with them."""
    if status.deliverable_type is DeliverableType.CODE:
        from thoughtforge.plugins.code.builder import CodeBuilder

        return CodeBuilder(project, config, runner=as_task)
    from thoughtforge.plugins.plan import PlanBuilder

    return PlanBuilder(project, config, runner=as_task, on_progress=_publisher(project))


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
        f"### The build needs you\n\n{latest_ai_message(project)}\n\n"
        "- **provide_input**: answer in the message; the builder tries again with it\n"
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
