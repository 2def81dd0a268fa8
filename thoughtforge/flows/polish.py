"""Phase 4 in a run: each iteration is a line of the run's log (not a task run: see
`phases.polish.loop`); the trajectory (a table and a chart) and the last verdict are artifacts,
published when the loop stops and at most every `PUBLISH_EVERY_SECONDS` while it runs, so the UI
shows how the loop is going without an upload per iteration. A halt waits for the human's
decision when asked. No result is persisted: the project's files are the record (and Prefect need
not ask the server where it would store them).
"""

from __future__ import annotations

import time
from pathlib import Path

from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.flows import flow
from prefect.logging import get_run_logger

from thoughtforge.catalogue import HaltChoice
from thoughtforge.config import Config
from thoughtforge.core.project import Project, open_project
from thoughtforge.core.spend.summary import spend_markdown, spend_of
from thoughtforge.core.state import PolishState, read_polish_state
from thoughtforge.core.waiting import clear_wait
from thoughtforge.errors import StateFileError
from thoughtforge.flows.human_input import POLISH_HALT, halt_prompt, wait_for_human
from thoughtforge.flows.runtime.in_process import run_here
from thoughtforge.flows.runtime.run_opening import opening, working_on
from thoughtforge.flows.runtime.task_runner import halted_state
from thoughtforge.phases import human_decisions
from thoughtforge.phases.polish.guards import GuardReport, describe
from thoughtforge.phases.polish.loop import PolishLoop, PolishOutcome
from thoughtforge.phases.polish.trajectory_chart import trajectory_chart

PUBLISH_EVERY_SECONDS = 10.0


@flow(
    name="thoughtforge-polish",
    log_prints=True,
    persist_result=False,
)
def polish_flow(
    project_id: str, config_path: str | None = None, wait_for_human: bool = False
) -> PolishOutcome:
    """Run or resume the polish loop of one project until it is done or halted.

    With `wait_for_human`, a halt waits until a resume / override / terminate input arrives (from
    the Prefect UI or `thoughtforge resume|override|terminate`).
    """
    config = opening(config_path)
    with working_on(config, open_project(config, project_id)) as project:
        outcome = polish_until_settled(project, config, wait_for_human)
    if outcome.verdict == "done":
        return outcome
    # a returned State is the run's final state (Prefect's way); its data is the outcome
    return halted_state(f"{outcome.halt_reason}: {outcome.reason}", outcome)  # type: ignore[return-value]


def polish_until_settled(project: Project, config: Config, wait_for_human: bool) -> PolishOutcome:
    """The loop, then (with `wait_for_human`) the human's decision on a halt, until settled."""
    while True:
        progress = _Progress(project, config)
        loop = PolishLoop(project, config, on_iteration=progress.iteration_done)
        outcome = loop.run()
        print(outcome.reason)
        progress.publish(loop.last_report)
        if outcome.verdict == "done" or not wait_for_human:
            return outcome
        answer = _ask(project, outcome.reason)
        clear_wait(project.dir)
        human_decisions.apply(project, answer)
        if answer != "resume":
            return outcome


def polish_in_process(project_id: str, config_path: Path, wait_for_human: bool) -> PolishOutcome:
    """Run the flow here. The run tags itself with the project (`tag_this_run`), so `thoughtforge
    resume` can find it paused."""
    return run_here(
        polish_flow,
        project_id=project_id,
        config_path=str(config_path),
        wait_for_human=wait_for_human,
    )


def _ask(project: Project, reason: str) -> HaltChoice:
    return wait_for_human(project, POLISH_HALT, halt_prompt(reason)).value.action


class _Progress:
    """Logs every iteration; publishes the artifacts when asked, or when the last publication is
    `PUBLISH_EVERY_SECONDS` old."""

    def __init__(self, project: Project, config: Config) -> None:
        self.project = project
        self.config = config
        self.published_at = time.monotonic()

    def iteration_done(self, state: PolishState, report: GuardReport) -> None:
        get_run_logger().info(
            "iteration %d: %s — %s", state.iteration, describe(state.counts), report.verdict
        )
        if time.monotonic() - self.published_at >= PUBLISH_EVERY_SECONDS:
            self.publish(report, state)

    def publish(self, report: GuardReport | None, state: PolishState | None = None) -> None:
        self.published_at = time.monotonic()
        if state is None:
            try:
                state = read_polish_state(self.project.dir)
            except StateFileError:
                return  # no iteration recorded (or a corrupt state, which the halt names)
        key = self.project.id
        create_table_artifact(
            key=f"{key}-trajectory",
            table=[entry.model_dump(mode="json") for entry in state.trajectory],
            description=f"Polish trajectory of {key}",
        )
        create_markdown_artifact(
            key=f"{key}-spend",
            markdown=spend_markdown(spend_of(self.config, self.project), key),
            description=f"What {key}'s agent calls cost, per phase and polish iteration",
        )
        create_markdown_artifact(
            key=f"{key}-convergence",
            markdown=f"## Convergence of {key}\n\n{trajectory_chart(state.trajectory)}"
            + (_verdict_markdown(state, report) if report else ""),
            description=f"Convergence chart and latest guard verdict of {key}",
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
