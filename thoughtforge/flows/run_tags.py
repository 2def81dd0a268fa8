"""A run's project, as a tag on the run: how the CLI finds a waiting run, and how a re-entered
pipeline run (after a suspension) finds the project it created on its first pass."""

from __future__ import annotations

from prefect import get_client, runtime

from thoughtforge.core import Project
from thoughtforge.server.api import PROJECT_TAG_PREFIX, project_tag


def tag_this_run(project: Project) -> None:
    """Add the project's tag to the current flow run, once."""
    run_id = runtime.flow_run.id
    current = set(runtime.flow_run.tags)
    if run_id is None or project_tag(project.id) in current:
        return
    with get_client(sync_client=True) as client:
        client.update_flow_run(run_id, tags=sorted(current | {project_tag(project.id)}))


def project_of_this_run() -> str | None:
    """The project this flow run was tagged with on an earlier pass, if any."""
    for tag in runtime.flow_run.tags:
        if tag.startswith(PROJECT_TAG_PREFIX):
            return tag.removeprefix(PROJECT_TAG_PREFIX)
    return None
