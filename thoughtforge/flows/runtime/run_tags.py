"""A run's project, as a tag and a name on the run: the tag is how the CLI finds a waiting run,
and how a re-entered pipeline run (after a suspension) finds the project it created on its first
pass; the name is how a person finds it in the UI (`<project id>` until the project is named at
the end of Phase 1, then `<name> · <phase>`), in place of Prefect's random one."""

from __future__ import annotations

from uuid import UUID

from prefect import runtime
from prefect.client.orchestration import get_client

from thoughtforge.core.project import Project
from thoughtforge.core.revisions import current_revision, run_label
from thoughtforge.core.state import Status
from thoughtforge.stack.api import PROJECT_TAG_PREFIX, project_tag

_named: dict[str, str] = {}
"""The name each flow run of this process was given last, so an unchanged one costs no call."""


def tag_this_run(project: Project) -> None:
    """Add the project's tag to the current flow run, once, and name the run after it."""
    run_id = runtime.flow_run.id
    if run_id is None:
        return
    current, tag = set(runtime.flow_run.tags), project_tag(project.id)
    tags = None if tag in current else sorted(current | {tag})
    _update(run_id, run_name(project.id, project.status(), current_revision(project.dir)), tags)


def name_this_run(project: Project, status: Status) -> None:
    """Rename the current flow run when the project's name or phase moved on."""
    run_id = runtime.flow_run.id
    if run_id is not None:
        _update(run_id, run_name(project.id, status, current_revision(project.dir)), None)


def run_name(project_id: str, status: Status, revision: int = 1) -> str:
    return run_label(project_id, status.project_name, status.phase.value, revision)


def _update(run_id: str, name: str, tags: list[str] | None) -> None:
    if tags is None and _named.get(run_id, runtime.flow_run.name) == name:
        return
    with get_client(sync_client=True) as client:
        client.update_flow_run(UUID(run_id), name=name, tags=tags)
    _named[run_id] = name


def project_of_this_run() -> str | None:
    """The project this flow run was tagged with on an earlier pass, if any."""
    tags: list[str] = runtime.flow_run.tags
    for tag in tags:
        if tag.startswith(PROJECT_TAG_PREFIX):
            return tag.removeprefix(PROJECT_TAG_PREFIX)
    return None
