"""The scheduled re-polish: every `done` project whose deliverable or `constraints.md` changed
since its last polish goes through the polish loop again (`polishing` → `done` or `halted`);
unchanged ones are not touched. The run's log and an artifact list what was checked and why."""

from __future__ import annotations

from pathlib import Path

from prefect.artifacts import create_table_artifact
from prefect.flows import flow

from thoughtforge.config import Config, load_config
from thoughtforge.core import hold_run_lock, open_project
from thoughtforge.errors import ProjectError
from thoughtforge.flows.console import make_run_output_inert
from thoughtforge.flows.events import announce
from thoughtforge.flows.limits import run_slot
from thoughtforge.flows.polish import polish_until_settled
from thoughtforge.flows.shutdown import stopping_gracefully
from thoughtforge.flows.tls_context import share_one_tls_context
from thoughtforge.phases.polish.repolish import RepolishCheck, check_done_projects, start_repolish

share_one_tls_context()  # before this run's clients are made


@flow(name="thoughtforge-repolish", log_prints=True, persist_result=False)
def repolish_flow(config_path: str = "") -> list[dict[str, str]]:
    """Check every done project; re-polish the changed ones. Returns one row per project."""
    config = load_config(Path(config_path) if config_path else None)
    make_run_output_inert()
    announce(config, config_path)
    rows = [_handle(config, found) for found in check_done_projects(config)]
    create_table_artifact(
        key="thoughtforge-repolish",
        table=rows or [{"project": "-", "checked": "no done project", "outcome": "-"}],
        description="What the last re-polish checked, and why each project was or was not polished",
    )
    return rows


def _handle(config: Config, found: RepolishCheck) -> dict[str, str]:
    print(f"{found.project_id}: {found.reason}")
    row = {"project": found.project_id, "checked": found.reason, "outcome": "not touched"}
    if not found.due:
        return row
    project = open_project(config, found.project_id)
    try:
        with hold_run_lock(project), run_slot(config, project), stopping_gracefully(config):
            start_repolish(project, found)
            outcome = polish_until_settled(project, config, wait_for_human=False)
    except ProjectError as exc:  # a run of this project is live: the next schedule retries it
        row["outcome"] = f"skipped: {exc}"
        return row
    row["outcome"] = f"re-polished: {outcome.verdict} after {outcome.iteration} iterations"
    print(f"{found.project_id}: {row['outcome']}")
    return row
