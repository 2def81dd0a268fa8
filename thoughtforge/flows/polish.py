"""Phase 4 in a run: each iteration's review and fix are named tasks; the trajectory (a table and a
chart) and the last verdict are published as artifacts when the loop stops, never per iteration,
so the UI costs the loop nothing while it runs. A halt waits for the human's decision when asked.
"""

from __future__ import annotations

from pathlib import Path

from prefect import flow, get_run_logger, tags
from prefect.artifacts import create_markdown_artifact, create_table_artifact

from thoughtforge.config import Config
from thoughtforge.core import (
    PolishState,
    Project,
    clear_wait,
    hold_run_lock,
    load_project,
    read_polish_state,
)
from thoughtforge.errors import StateFileError
from thoughtforge.flows.events import emit_transition_events
from thoughtforge.flows.human_input import POLISH_HALT, halt_prompt, wait_for_human
from thoughtforge.flows.limits import run_slot
from thoughtforge.flows.run_tags import tag_this_run
from thoughtforge.flows.task_runner import as_task
from thoughtforge.flows.temporary_server import track_temporary_server
from thoughtforge.phases import halt_actions
from thoughtforge.phases.polish.guards import GuardReport, describe
from thoughtforge.phases.polish.loop import PolishLoop, PolishOutcome
from thoughtforge.phases.polish.trajectory_chart import trajectory_chart
from thoughtforge.server.api import project_tag


@flow(name="thoughtforge-polish", flow_run_name="polish-{project_id}", log_prints=True)
def polish_flow(
    project_id: str, config_path: str | None = None, wait_for_human: bool = False
) -> PolishOutcome:
    """Run or resume the polish loop of one project until it is done or halted.

    With `wait_for_human`, a halt waits until a resume / override / terminate input arrives (from
    the Prefect UI or `thoughtforge resume|override|terminate`).
    """
    config, project = load_project(project_id, config_path)
    emit_transition_events()
    tag_this_run(project)
    with hold_run_lock(project), run_slot(config):
        track_temporary_server(project)
        return polish_until_settled(project, config, wait_for_human)


def polish_until_settled(project: Project, config: Config, wait_for_human: bool) -> PolishOutcome:
    """The loop, then (with `wait_for_human`) the human's decision on a halt, until settled."""
    while True:
        loop = PolishLoop(project, config, runner=as_task, on_iteration=_log_iteration)
        outcome = loop.run()
        print(outcome.reason)
        _publish(project, loop.last_report)
        if outcome.verdict == "done" or not wait_for_human:
            return outcome
        answer = _ask(project, outcome.reason)
        clear_wait(project.dir)
        halt_actions.apply(project, answer)
        if answer != "resume":
            return outcome


def polish_in_process(project_id: str, config_path: Path, wait_for_human: bool) -> PolishOutcome:
    """Run the flow here, tagged with the project so `thoughtforge resume` can find it paused."""
    with tags(project_tag(project_id)):
        return polish_flow(project_id, str(config_path), wait_for_human)


def _ask(project: Project, reason: str) -> str:
    return wait_for_human(project, POLISH_HALT, halt_prompt(reason)).value.action


def _log_iteration(state: PolishState, report: GuardReport) -> None:
    get_run_logger().info(
        "iteration %d: %s — %s", state.iteration, describe(state.counts), report.verdict
    )


def _publish(project: Project, report: GuardReport | None) -> None:
    """The trajectory and the last verdict, once per stop of the loop."""
    try:
        state = read_polish_state(project.dir)
    except StateFileError:
        return  # no iteration recorded (or a corrupt state, which the halt already names)
    create_table_artifact(
        key=f"{project.id}-trajectory",
        table=[entry.model_dump(mode="json") for entry in state.trajectory],
        description=f"Polish trajectory of {project.id}",
    )
    create_markdown_artifact(
        key=f"{project.id}-convergence",
        markdown=f"## Convergence of {project.id}\n\n{trajectory_chart(state.trajectory)}"
        + (_verdict_markdown(state, report) if report else ""),
        description=f"Convergence chart and latest guard verdict of {project.id}",
    )


def _verdict_markdown(state: PolishState, report: GuardReport) -> str:
    rows = "\n".join(
        f"| {r.name} | {'yes' if r.triggered else 'no'} | {r.detail} |" for r in report.results
    )
    return (
        f"\n### Iteration {state.iteration}: {report.verdict}\n\n{report.reason}\n\n"
        f"**Counts:** {describe(state.counts)}\n\n"
        f"| guard | triggered | detail |\n| --- | --- | --- |\n{rows}\n"
    )
