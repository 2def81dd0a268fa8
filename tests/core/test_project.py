"""Opening and listing projects: ids are checked, an unreadable status is reported, never fixed."""

from __future__ import annotations

import pytest

from thoughtforge.config import Config
from thoughtforge.core.creation import create_project
from thoughtforge.core.project import list_projects, open_project
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


def test_listing_keeps_to_project_folders_in_id_order(config: Config) -> None:
    """Files, half-made and foreign folders, dangling links and link loops are no projects; a
    link to a project is listed as unreadable, saying it is a link; one corrupt project stops
    neither the listing nor the order."""
    made = sorted(create_project(config).id for _ in range(3))
    root = config.projects.directory
    (root / made[1] / "status.json").write_text('{"phase": "buil')
    (root / "20261101-file-0000").write_text("not a folder")
    (root / ".creating-20261101-half-0000").mkdir()
    (root / "Notes").mkdir()
    (root / "20261101-gone-0000").symlink_to(root / "nowhere")
    (root / "20261101-loop-0000").symlink_to(root / "20261101-loop-0000")
    (root / "20261101-link-0000").symlink_to(root / made[0])
    listings = list_projects(config)
    assert [listing.project.id for listing in listings] == ["20261101-link-0000", *made]
    assert [listing.status is None for listing in listings] == [True, False, True, False]
    assert "is a symbolic link" in (listings[0].error or "")
    assert f"{made[1]}/status.json: is not valid JSON" in (listings[2].error or "")
