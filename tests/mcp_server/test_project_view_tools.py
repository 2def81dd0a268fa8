"""MCP's `project_status` and `list_projects` say where a project's run is from the same read
model as the page and `thoughtforge status` (`core.project_view`): what it waits for, its
revision, and the actions it takes then."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import BRAIN_DUMP
from thoughtforge.config import load_config
from thoughtforge.core.creation import create_project
from thoughtforge.core.run_lock import hold_run_lock
from thoughtforge.core.state import utc_now
from thoughtforge.core.waiting import Waiting, record_wait
from thoughtforge.mcp_server.project_tools import list_projects, project_status
from thoughtforge.mcp_server.tools import Tools
from thoughtforge.models import Phase


def test_project_status_and_the_list_say_where_the_run_is(
    write_config: Callable[..., Path],
) -> None:
    config_file = write_config()
    tools = Tools(config_file, load_config(config_file))
    project = create_project(tools.config, brain_dump=BRAIN_DUMP)

    idle = project_status(tools, project.id)
    assert (idle["run"], idle["waits_for"], idle["revision"]) == ("none", None, 1)
    assert idle["actions_now"] == ["send", "start"]

    with hold_run_lock(project):
        working = project_status(tools, project.id)
        assert working["run"] == "working" and working["actions_now"] == ["send"]

    wait = Waiting(
        key="k1", kind="ReviewTurn", phase=Phase.HUMAN_REVIEW, chat_length=1, since=utc_now()
    )
    record_wait(project.dir, wait.model_copy(update={"away": True}))
    asked = project_status(tools, project.id)
    assert (asked["run"], asked["waits_for"]) == ("suspended", "corrections or confirm")
    assert "confirm" in asked["actions_now"]
    [listed] = list_projects(tools)["projects"]
    assert (listed["run"], listed["waits_for"]) == ("suspended", "corrections or confirm")
