"""A pull the person asks for: a link whose connector is off is named in a note, and nothing is
written to the project's resources/."""

from __future__ import annotations

from thoughtforge.actions.pulling import pull
from thoughtforge.config import Config
from thoughtforge.core.creation import create_project

NOTION = "https://www.notion.so/x-0123456789abcdef0123456789abcdef"


def test_a_link_whose_connector_is_off_is_named_and_nothing_written(config: Config) -> None:
    project = create_project(config, brain_dump="x")

    report = pull(config, project, [NOTION])

    assert report.written == []
    assert any("connectors.notion.enabled is false" in note for note in report.notes())
    assert {p.name for p in project.resources_dir.iterdir()} <= {".gitkeep"}
