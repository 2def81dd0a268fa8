"""Archive: the one path the CLI, the workbench and the MCP server take (unarchive, which needs no
run's name, is `core.archive.unarchive` for all three).

The rule is `core.archive`'s; what only this layer can see is whether a run works on the project
(its lock held, a run on its way, or one Prefect has scheduled, starting or running), and that
run's name, which the refusal gives.
"""

from __future__ import annotations

from thoughtforge.config import Config
from thoughtforge.core import Project, Status, is_running
from thoughtforge.core.archive import archive
from thoughtforge.core.run_lock import LOCK_FILE
from thoughtforge.core.run_start import starting
from thoughtforge.server.api import PrefectApi, PrefectApiError, find_api


def archive_project(config: Config, project: Project) -> Status:
    """Archive the project unless a run works on it (`core.archive.ArchiveRefused` names it)."""
    return archive(project, working_run(config, project))


def working_run(config: Config, project: Project) -> str | None:
    """The name of the run working on the project (or about to), else None."""
    named = _prefect_busy_run(config, project)
    if named is not None:
        return named
    claim = starting(project)
    if claim is not None:
        return claim.run_name or "a run being started"
    if is_running(project):
        holder = _lock_holder(project)
        return f"the run in {holder}" if holder else "a run in another process"
    return None


def _prefect_busy_run(config: Config, project: Project) -> str | None:
    url = find_api(config)
    if url is None:
        return None
    try:
        return PrefectApi(url).busy_run(project)
    except PrefectApiError:
        return None


def _lock_holder(project: Project) -> str:
    try:
        return (project.dir / LOCK_FILE).read_text().strip()
    except OSError:
        return ""
