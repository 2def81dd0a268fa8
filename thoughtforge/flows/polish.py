"""Phase 4 as a Prefect flow: each review and fix is a named task, the trajectory and the last
verdict are artifacts, and a halt waits for the human's decision when asked to."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from prefect import flow, get_run_logger, tags
from prefect.artifacts import create_markdown_artifact, create_table_artifact

from thoughtforge.config import Config
from thoughtforge.core import PolishState, Project, hold_run_lock, load_project
from thoughtforge.flows import human_input
from thoughtforge.flows.paused_runs import project_tag
from thoughtforge.flows.task_runner import as_task
from thoughtforge.flows.temporary_server import track_temporary_server
from thoughtforge.phases import halt_actions
from thoughtforge.phases.polish.guards import GuardReport, describe
from thoughtforge.phases.polish.loop import PolishLoop, PolishOutcome


@flow(name="thoughtforge-polish", flow_run_name="polish-{project_id}", log_prints=True)
def polish_flow(
    project_id: str, config_path: str | None = None, wait_for_human: bool = False
) -> PolishOutcome:
    """Run or resume the polish loop of one project until it is done or halted.

    With `wait_for_human`, a halt pauses the run until a resume / override / terminate input
    arrives (from the Prefect UI or `thoughtforge resume|override|terminate`).
    """
    config, project = load_project(project_id, config_path)
    with hold_run_lock(project):
        track_temporary_server(project)
        return _polish_until_settled(project, config, wait_for_human)


def _polish_until_settled(project: Project, config: Config, wait_for_human: bool) -> PolishOutcome:
    while True:
        loop = PolishLoop(project, config, runner=as_task, on_iteration=_publisher(project))
        outcome = loop.run()
        print(outcome.reason)
        if outcome.verdict == "done" or not wait_for_human:
            return outcome
        decision = human_input.wait_for_human(
            human_input.HaltDecision,
            human_input.halt_prompt(outcome.reason),
            key=human_input.halt_key(project),
        )
        halt_actions.apply(project, decision.action)
        if decision.action != "resume":
            return outcome


def polish_in_process(project_id: str, config_path: Path, wait_for_human: bool) -> PolishOutcome:
    """Run the flow here, tagged with the project so `thoughtforge resume` can find it paused."""
    with tags(project_tag(project_id)):
        return polish_flow(project_id, str(config_path), wait_for_human)


def _publisher(project: Project) -> Callable[[PolishState, GuardReport], None]:
    def publish(state: PolishState, report: GuardReport) -> None:
        get_run_logger().info(
            "iteration %d: %s — %s", state.iteration, describe(state.counts), report.verdict
        )
        create_table_artifact(
            key=f"{project.id}-trajectory",
            table=[entry.model_dump(mode="json") for entry in state.trajectory],
            description=f"Polish trajectory of {project.id}",
        )
        create_markdown_artifact(
            key=f"{project.id}-verdict",
            markdown=_verdict_markdown(state, report),
            description=f"Latest guard verdict of {project.id}",
        )

    return publish


def _verdict_markdown(state: PolishState, report: GuardReport) -> str:
    rows = "\n".join(
        f"| {r.name} | {'yes' if r.triggered else 'no'} | {r.detail} |" for r in report.results
    )
    return (
        f"## Iteration {state.iteration}: {report.verdict}\n\n{report.reason}\n\n"
        f"**Counts:** {describe(state.counts)}\n\n"
        f"| guard | triggered | detail |\n| --- | --- | --- |\n{rows}\n"
    )
