"""Archive: a project that will not go on by itself leaves the inbox and the active count, with
its folder, its files and its git history kept; unarchive brings it back as it was.

Which projects: a finished one (`done`), a terminated one, and a halted one. A halted project is
parked: it stops holding a slot of `concurrency.max_parallel_runs`, and its halt (and a run
suspended while it waits for the decision) stays as it was; unarchive it, or decide its halt
(resume, override, terminate), to bring it back. A project in any other phase is refused: it is
someone's work in progress (finish or terminate it first). So is any project a run is working on,
named by the caller, who can see the runs (`actions.archiving`).

The mark is `archived_at` in `status.json`, committed; every phase change clears it
(`transition`), so a project that moves again is never hidden.
"""

from __future__ import annotations

from thoughtforge.core.project import Project
from thoughtforge.core.project_log import log_event
from thoughtforge.core.staging import commit_own
from thoughtforge.core.state import Status, utc_now, write_status
from thoughtforge.errors import ProjectError
from thoughtforge.models import Phase

ARCHIVABLE_PHASES = frozenset({Phase.DONE, Phase.HALTED})


class ArchiveRefused(ProjectError):
    """A project that cannot be archived now: in progress, or a run works on it."""


def archive_refusal(project: Project, status: Status, working_run: str | None) -> str | None:
    """Why `project` cannot be archived now, or None when it can."""
    if status.archived_at is not None:
        return f"project {project.id} is archived already"
    if working_run is not None:
        return (
            f"a run ({working_run}) is working on project {project.id}: archive it once the "
            "run has stopped"
        )
    if status.phase not in ARCHIVABLE_PHASES:
        return (
            f"project {project.id} is in progress ({status.phase}): only a finished, terminated "
            f"or halted project can be archived (finish it, or `thoughtforge terminate "
            f"{project.id}` first)"
        )
    return None


def archive(project: Project, working_run: str | None = None) -> Status:
    """Mark the project archived, or `ArchiveRefused` saying why not."""
    status = project.status()
    why = archive_refusal(project, status, working_run)
    if why is not None:
        raise ArchiveRefused(why)
    archived = status.model_copy(update={"archived_at": utc_now()})
    _record(project, archived, "archived", "Archive the project")
    return archived


def unarchive(project: Project) -> Status:
    """Bring an archived project back to the inbox (a halted one counts as active again)."""
    status = project.status()
    if status.archived_at is None:
        raise ArchiveRefused(f"project {project.id} is not archived")
    back = status.model_copy(update={"archived_at": None})
    _record(project, back, "unarchived", "Bring the project back from the archive")
    return back


def _record(project: Project, status: Status, event: str, message: str) -> None:
    write_status(project.dir, status)
    log_event(project.dir, event, phase=status.phase.value)
    commit_own(project.dir, message)
