"""The scheduled re-polish: every `done` project whose deliverable or `constraints.md` changed
since its last polish goes through the polish loop again (`polishing` → `done` or `halted`);
unchanged ones are not touched. The run's log and an artifact list what was checked and why."""

from __future__ import annotations

from prefect.artifacts import create_table_artifact
from prefect.flows import flow

from thoughtforge.config import Config
from thoughtforge.core.project import open_project
from thoughtforge.errors import ProjectError
from thoughtforge.flows.polish import polish_until_settled
from thoughtforge.flows.runtime.run_opening import opening, working_on
from thoughtforge.phases.polish.repolish import RepolishCheck, check_done_projects, start_repolish
from thoughtforge.plurals import plural


@flow(name="thoughtforge-repolish", log_prints=True, persist_result=False)
def repolish_flow(config_path: str = "") -> list[dict[str, str]]:
    """Check every done project; re-polish the changed ones. Returns one row per project."""
    config = opening(config_path)
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
        with working_on(config, project, tag_run=False):
            start_repolish(project, found)
            outcome = polish_until_settled(project, config, wait_for_human=False)
    except ProjectError as exc:  # a run of this project is live: the next schedule retries it
        row["outcome"] = f"skipped: {exc}"
        return row
    row["outcome"] = (
        f"re-polished: {outcome.verdict} after {plural(outcome.iteration, 'iteration')}"
    )
    print(f"{found.project_id}: {row['outcome']}")
    return row
