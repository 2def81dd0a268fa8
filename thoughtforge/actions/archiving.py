"""Archive and unarchive: the one path the CLI, the page and the MCP server take.

The rule is `core.archive`'s; what only this layer can see is whether a run works on the project
(`actions.run_state.working_run`), and that run's name, which the refusal gives. Each takes the
project's claim (`core.course_claim`), so it never crosses a revision, a rollback or a start.
"""

from __future__ import annotations

from thoughtforge.actions.run_state import working_run
from thoughtforge.config import Config
from thoughtforge.core.archive import archive, unarchive
from thoughtforge.core.course_claim import claimed
from thoughtforge.core.project import Project
from thoughtforge.core.state import Status

ARCHIVED_NOTE = "Archived: it is out of the inbox (see Archived) and the count."
UNARCHIVED_NOTE = "Back in the inbox."


def archive_project(config: Config, project: Project) -> Status:
    """Archive the project unless a run works on it (`core.archive.ArchiveRefused` names it) or
    another change of its course holds it (`ProjectClaimed`)."""
    with claimed(project, "archive"):
        return archive(project, working_run(config, project))


def unarchive_project(project: Project) -> Status:
    """Back in the inbox (a halted project counts as active again)."""
    with claimed(project, "unarchive"):
        return unarchive(project)
