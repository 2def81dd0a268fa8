"""The whole pipeline: read `status.json`, run that phase's flow, repeat until done or halted.

Because it dispatches from the files, running it again on any project continues where that
project stopped. Parameters are plain values, so a deployment run can be started from a shell:
`prefect deployment run thoughtforge-pipeline/<name> -p brain_dump="…" -p auto_confirm=true`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from prefect import flow, get_client, runtime, tags

from thoughtforge.config import Config, load_config
from thoughtforge.core import Project, Status, create_project, hold_run_lock, open_project
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.flows.build import build_flow
from thoughtforge.flows.human_input import HaltDecision, halt_key, halt_prompt, wait_for_human
from thoughtforge.flows.intake import intake_flow
from thoughtforge.flows.paused_runs import project_tag
from thoughtforge.flows.polish import polish_flow
from thoughtforge.flows.spec import spec_flow
from thoughtforge.flows.temporary_server import track_temporary_server
from thoughtforge.flows.turns import state_files_readable
from thoughtforge.models import INPUT_HALTS, HaltReason, Phase
from thoughtforge.phases import halt_actions, latest_ai_message, notice

PhaseFlow = Callable[[str, str | None, bool], object]


def _polish(project_id: str, config_path: str | None, auto_confirm: bool) -> object:
    """Halts are handled by the pipeline, so the polish flow itself never waits."""
    return polish_flow(project_id, config_path, wait_for_human=False)


PHASE_FLOWS: dict[Phase, PhaseFlow] = {
    Phase.BRAIN_DUMP: intake_flow,
    Phase.DISTILLING: intake_flow,
    Phase.HUMAN_REVIEW: intake_flow,
    Phase.SPEC_BUILDING: spec_flow,
    Phase.BUILDING: build_flow,
    Phase.POLISHING: _polish,
}


@flow(name="thoughtforge-pipeline", log_prints=True)
def pipeline_flow(
    project_id: str = "",
    brain_dump: str = "",
    resources: list[str] | None = None,
    agent: str = "",
    auto_confirm: bool = False,
    config_path: str = "",
) -> str:
    """Take a project (or create one from a brain dump) as far as it can go; returns its phase."""
    config = load_config(Path(config_path) if config_path else None)
    if project_id:
        project = open_project(config, project_id)
    else:
        project = create_project(
            config,
            brain_dump=brain_dump,
            resources=[Path(r) for r in resources or []],
            agent=agent or None,
        )
        print(f"Created project {project.id} in {project.dir}")
    _tag_this_run(project)
    with tags(project_tag(project.id)), hold_run_lock(project):
        track_temporary_server(project)
        if not state_files_readable(project):
            return project.status().phase.value
        return _dispatch(project, config, config_path or None, auto_confirm).phase.value


def pipeline_in_process(project_id: str, config_path: Path, auto_confirm: bool) -> str:
    """Run the pipeline here, tagged with the project so the CLI can find it when it waits."""
    with tags(project_tag(project_id)):
        return pipeline_flow(
            project_id=project_id, auto_confirm=auto_confirm, config_path=str(config_path)
        )


def _dispatch(
    project: Project, config: Config, config_path: str | None, auto_confirm: bool
) -> Status:
    while True:
        before = project.status()
        if before.phase is Phase.DONE:
            return before
        if before.phase is Phase.HALTED:
            if auto_confirm or before.halt_reason is HaltReason.HUMAN_TERMINATED:
                return before
            if before.halt_reason in INPUT_HALTS:
                build_flow(project.id, config_path, auto_confirm)  # it asks for the missing input
            else:
                _await_decision(project)
            if project.status() == before:
                return before
            continue
        print(f"Phase: {before.phase}")
        PHASE_FLOWS[before.phase](project.id, config_path, auto_confirm)
        if project.status() == before:  # nothing moved: a batch run that needs the human
            return before


def _await_decision(project: Project) -> None:
    decision = wait_for_human(
        HaltDecision, halt_prompt(latest_ai_message(project)), key=halt_key(project)
    )
    try:
        halt_actions.apply(project, decision.action)
    except ThoughtForgeError as exc:
        notice(project, f"Cannot {decision.action}: {exc}")


def _tag_this_run(project: Project) -> None:
    run_id = runtime.flow_run.id
    current = set(runtime.flow_run.tags)
    if run_id is None or project_tag(project.id) in current:
        return
    with get_client(sync_client=True) as client:
        client.update_flow_run(run_id, tags=sorted(current | {project_tag(project.id)}))
