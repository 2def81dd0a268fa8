"""Projects on disk: `<projects.directory>/<id>/` with `docs/`, `resources/` and a git repo."""

from __future__ import annotations

import os
import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from thoughtforge.config import Config
from thoughtforge.core.state import Status, read_status
from thoughtforge.errors import ProjectError, StateFileError
from thoughtforge.models import HaltReason, Phase

# The pipeline's documents, relative to the project directory.
INTENT_FILE = "docs/intent.md"
SPEC_FILE = "docs/spec.md"
CONSTRAINTS_FILE = "docs/constraints.md"
PLAN_FILE = "docs/plan.md"

VALID_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,80}$")
"""Project ids; anything else in the projects folder (a half-made `.creating-…`) is not one."""


class Project(BaseModel):
    """A handle on one project directory. The directory name is the project id."""

    model_config = ConfigDict(frozen=True)

    id: str
    dir: Path

    @property
    def docs_dir(self) -> Path:
        return self.dir / "docs"

    @property
    def resources_dir(self) -> Path:
        return self.dir / "resources"

    def status(self) -> Status:
        return read_status(self.dir)


class ProjectListing(BaseModel):
    """A project and its status, or the reason its status could not be read."""

    project: Project
    status: Status | None
    error: str | None = None

    @property
    def is_active(self) -> bool:
        """Active projects count against `concurrency.max_parallel_runs`; unreadable ones do too,
        archived ones do not."""
        if self.status is None:
            return True
        if self.status.phase is Phase.DONE or self.status.archived_at is not None:
            return False
        return self.status.halt_reason is not HaltReason.HUMAN_TERMINATED


def open_project(config: Config, project_id: str) -> Project:
    """The project with this id; a malformed id or a missing folder is a `ProjectError`."""
    if not VALID_ID.match(project_id):
        raise ProjectError(
            f"'{project_id}' is not a project id (ids look like 20261122-wedding-a3f9)"
        )
    path = config.projects.directory / project_id
    if not path.is_dir():
        raise ProjectError(f"no project '{project_id}' in {config.projects.directory}")
    return Project(id=project_id, dir=path)


def list_projects(config: Config) -> list[ProjectListing]:
    """Every project in the projects folder, sorted by id, readable or not."""
    root = config.projects.directory
    if not root.is_dir():
        return []
    with os.scandir(root) as entries:
        ids = sorted(
            entry.name for entry in entries if VALID_ID.match(entry.name) and _is_dir(entry)
        )
    listings = []
    for project_id in ids:
        project = Project(id=project_id, dir=root / project_id)
        try:
            listings.append(ProjectListing(project=project, status=project.status()))
        except StateFileError as exc:
            listings.append(ProjectListing(project=project, status=None, error=str(exc)))
    return listings


def _is_dir(entry: os.DirEntry[str]) -> bool:
    """`Path.is_dir` without a `stat` per project (the folder listing has said what each entry
    is); an entry that cannot be followed, such as a link loop, is no project."""
    try:
        return entry.is_dir()
    except OSError:
        return False
