"""The MCP tools archive as the CLI and the page do (`actions.archiving`), and `list_projects`
leaves archived projects out unless asked; called as the MCP server calls them (`Tools`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import BRAIN_DUMP
from thoughtforge.config import load_config
from thoughtforge.core.archive import ArchiveRefused
from thoughtforge.core.creation import create_project
from thoughtforge.core.state import read_status, write_status
from thoughtforge.mcp_server.project_tools import (
    archive_project,
    list_projects,
    project_status,
    unarchive_project,
)
from thoughtforge.mcp_server.tools import Tools
from thoughtforge.models import Phase


def test_archive_tools_and_the_project_list(write_config: Callable[..., Path]) -> None:
    config_file = write_config()
    tools = Tools(config_file, load_config(config_file))
    done, working = (create_project(tools.config, brain_dump=BRAIN_DUMP) for _ in range(2))
    write_status(done.dir, read_status(done.dir).model_copy(update={"phase": Phase.DONE}))

    assert archive_project(tools, done.id)["archived"] is True
    assert [p["project_id"] for p in list_projects(tools)["projects"]] == [working.id]
    every = list_projects(tools, include_archived=True)["projects"]
    assert {p["project_id"]: p["archived"] for p in every} == {done.id: True, working.id: False}
    assert project_status(tools, done.id)["archived"] is True
    with pytest.raises(ArchiveRefused, match="in progress"):
        archive_project(tools, working.id)
    assert unarchive_project(tools, done.id)["archived"] is False
    assert len(list_projects(tools)["projects"]) == 2
