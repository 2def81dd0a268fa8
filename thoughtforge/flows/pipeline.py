"""The whole pipeline as one flow run: read `status.json`, run that phase, repeat until done,
halted, or waiting for the human.

Every phase runs inside this one run (plain functions whose steps are tasks, never subflows), so a
deployed run can suspend at any human step and the human answers every question on this run's
page. Because it dispatches from the files, running it again on any project, or re-entering it
after a suspension, continues where the project stopped. Parameters are plain values, so a
deployment run can be started from a shell (see the README and `prefect.yaml`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from prefect import runtime
from prefect.flows import flow
from prefect.states import State

from thoughtforge.catalogue import halt_decisions, halt_form
from thoughtforge.config import Config
from thoughtforge.core.creation import brain_dump_text, create_project, with_hints
from thoughtforge.core.project import Project, open_project
from thoughtforge.core.state import Status
from thoughtforge.core.waiting import clear_wait
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.flows.build import run_build
from thoughtforge.flows.human_input import (
    HALT,
    PLAN_GATE,
    POLISH_HALT,
    HumanStep,
    halt_prompt,
    wait_for_human,
)
from thoughtforge.flows.intake import run_intake
from thoughtforge.flows.polish import polish_until_settled
from thoughtforge.flows.runtime.in_process import run_here
from thoughtforge.flows.runtime.limits import holds_run_slot
from thoughtforge.flows.runtime.run_opening import opening, working_on
from thoughtforge.flows.runtime.run_tags import name_this_run, project_of_this_run
from thoughtforge.flows.runtime.task_runner import halted_state
from thoughtforge.flows.spec import run_spec
from thoughtforge.flows.turns import state_files_readable
from thoughtforge.models import HaltReason, Phase
from thoughtforge.phases import human_decisions, latest_ai_message, notice
from thoughtforge.phases.revision import start_revision

PhaseStep = Callable[[Project, Config, bool], object]


def _polish(project: Project, config: Config, auto_confirm: bool) -> object:
    """Halts are handled by the pipeline, so the polish loop itself never waits."""
    return polish_until_settled(project, config, wait_for_human=False)


PHASE_STEPS: dict[Phase, PhaseStep] = {
    Phase.BRAIN_DUMP: run_intake,
    Phase.DISTILLING: run_intake,
    Phase.HUMAN_REVIEW: run_intake,
    Phase.SPEC_BUILDING: run_spec,
    Phase.BUILDING: run_build,
    Phase.POLISHING: _polish,
}


@flow(name="thoughtforge-pipeline", log_prints=True)
def pipeline_flow(
    project_id: str = "",
    brain_dump: str = "",
    brain_dump_file: str = "",
    resources: list[str] | None = None,
    connector_urls: list[str] | None = None,
    agent: str = "",
    deliverable_type: str = "",
    auto_confirm: bool = False,
    config_path: str = "",
    change_request: str = "",
) -> str | State[str]:
    """Take a project (or a new one, from `brain_dump` text or `brain_dump_file`) as far as it can
    go; returns its phase. With `change_request`, a done or halted `project_id` is revised first
    (back to Phase 2 with the change as the person's first message)."""
    config = opening(config_path)
    project_id = project_id or project_of_this_run() or ""
    wanted: Project | Callable[[], Project] = (
        open_project(config, project_id)
        if project_id
        else partial(
            _new_project,
            config,
            brain_dump,
            brain_dump_file,
            resources,
            connector_urls,
            agent,
            deliverable_type,
        )
    )
    with working_on(config, wanted) as project:
        if not state_files_readable(project):
            return project.status().phase.value
        if change_request:
            start_revision(project, config, change_request, run_id=str(runtime.flow_run.id))
        return _run_result(_dispatch(project, config, auto_confirm))


def _run_result(status: Status) -> str | State[str]:
    """The phase; for a halt, in a state that says so: an expected halt is a normal end."""
    if status.phase is Phase.HALTED:
        return halted_state(f"{status.halt_reason} in {status.halted_from}", status.phase.value)
    return status.phase.value


def pipeline_in_process(project_id: str, config_path: Path, auto_confirm: bool) -> str | State[str]:
    """Run the pipeline here; what it returns (a returned state is handed back as its data: the
    phase, as `pipeline_flow` says). The run tags itself with the project (`tag_this_run`), so the
    CLI can find it when it waits; a `tags()` block would tag every task run too, and Prefect asks
    the server for the concurrency slots of every tagged task run, a round trip each."""
    return run_here(
        pipeline_flow,
        project_id=project_id,
        auto_confirm=auto_confirm,
        config_path=str(config_path),
    )


def _new_project(
    config: Config,
    brain_dump: str,
    brain_dump_file: str,
    resources: list[str] | None,
    connector_urls: list[str] | None,
    agent: str,
    deliverable_type: str,
) -> Project:
    """A new project: bounded by the run slot this run holds, when run slots are in force (`up`),
    else refused beyond `concurrency.max_parallel_runs` active projects."""
    text = with_hints(
        brain_dump_text(brain_dump, brain_dump_file), connector_urls, deliverable_type
    )
    project = create_project(
        config,
        brain_dump=text,
        resources=[Path(r) for r in resources or []],
        agent=agent or None,
        within_run_slot=holds_run_slot(),
    )
    print(f"Created project {project.id} in {project.dir}")
    return project


def _dispatch(project: Project, config: Config, auto_confirm: bool) -> Status:
    while True:
        before = project.status()
        name_this_run(project, before)
        if before.phase is Phase.DONE:
            return before
        if before.phase is Phase.HALTED:
            if auto_confirm or before.halt_reason is HaltReason.HUMAN_TERMINATED:
                return before
            if "provide_input" in halt_decisions(before.halt_reason, before.halted_from):
                run_build(project, config, auto_confirm)  # it asks for the missing input
            else:
                _await_decision(project, config)
            if project.status() == before:
                return before
            continue
        print(f"Phase: {before.phase}")
        PHASE_STEPS[before.phase](project, config, auto_confirm)
        if project.status() == before:  # nothing moved: a batch run that needs the human
            return before


_DECISION_STEPS: dict[str, HumanStep[Any]] = {
    step.form.__name__: step for step in (HALT, POLISH_HALT, PLAN_GATE)
}
"""The halt decisions a run waits for here, by form (`catalogue.halt_form`); a stuck build's
input is asked by the build (`flows.build`)."""


def _await_decision(project: Project, config: Config) -> None:
    status = project.status()
    step = _DECISION_STEPS[halt_form(status.halt_reason, status.halted_from)]
    decision = wait_for_human(project, step, halt_prompt(latest_ai_message(project))).value
    clear_wait(project.dir)
    action = decision.action
    try:
        if getattr(decision, "agent", "").strip() and action != "terminate":
            human_decisions.switch_agent(project, config, decision.agent.strip())
        human_decisions.apply(project, action)
    except ThoughtForgeError as exc:
        notice(project, f"Cannot {action}: {exc}")
