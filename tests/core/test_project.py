"""Opening and listing projects: ids are checked, an unreadable status is reported, never fixed."""

from __future__ import annotations

import pytest

from thoughtforge.config import Config
from thoughtforge.core import create_project, list_projects, open_project
from thoughtforge.errors import ProjectError


def test_open_project_rejects_path_tricks(config: Config) -> None:
    with pytest.raises(ProjectError, match="not a project id"):
        open_project(config, "../etc")
    with pytest.raises(ProjectError, match="no project"):
        open_project(config, "20261122-none-0000")


def test_listing_reports_unreadable_status_without_touching_it(config: Config) -> None:
    project = create_project(config)
    (project.dir / "status.json").write_text("{trunc")
    [listing] = list_projects(config)
    assert listing.status is None and "status.json" in (listing.error or "")
    assert (project.dir / "status.json").read_text() == "{trunc"
