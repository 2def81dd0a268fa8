"""A new person-action is its catalogue row, its implementation in `actions/` and its test: a
trial action ("pause") added at test time, as a row and a handler module, is offered at every
door with nothing else written: the page's composer shows its button where its form takes it,
the CLI has its command and it runs the handler, the MCP server lists its tool and a call runs
the handler."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import anyio
import jinja2
import pytest
from mcp import Client, StdioServerParameters

from tests.conftest import REPO_ROOT
from tests.mcp_server.conftest import payload
from thoughtforge import catalogue
from thoughtforge.actions.composer import composer_for
from thoughtforge.config import load_config
from thoughtforge.core.creation import create_project
from thoughtforge.core.state import Status, write_status
from thoughtforge.core.waiting import Waiting
from thoughtforge.models import HaltReason, Phase

NOW = datetime(2026, 12, 7, tzinfo=UTC)
TEMPLATES = REPO_ROOT / "thoughtforge" / "web" / "templates"
TRIAL = """
import sys, types
from pathlib import Path
from thoughtforge import catalogue
from thoughtforge.actions.answering import Outcome
from thoughtforge.door_entries import CliCommand, McpTool

def pause(config, config_file, project, answer, start, /, *, view):
    (project.dir / "paused").write_text(answer.message or "paused")
    return Outcome(delivery="applied", note=f"Paused {project.id}.")

module = types.ModuleType("thoughtforge.actions.trial_pausing")
module.pause = pause
sys.modules[module.__name__] = module
catalogue.ACTIONS["pause"] = catalogue.PersonAction.model_construct(
    name="pause", label="Pause", cli_verb="pause", mcp_tool="pause", mcp_argument="",
    needs_message=False, danger=False, shortcut=None, handler="trial_pausing:pause",
    cli=CliCommand(help="Pause the project after its current step."),
    mcp=McpTool(description="Pause the project after its current step."),
)
catalogue._OTHERWISE = ("resume", "pause", "terminate")
sys.argv = ["thoughtforge", *sys.argv[1:]]
from thoughtforge.cli import main  # the console script's entry
main()
"""
"""The trial action's row and implementation, then the console script as it runs: the doors
are made when their modules load, so the row is in before any door is."""


def _halted_project(config_file: Path) -> Path:
    """A project halted from no recorded phase: it takes the catalogue's `_OTHERWISE`."""
    project = create_project(load_config(config_file), brain_dump="A wedding for 60 guests.")
    status = project.status().model_copy(
        update={"phase": Phase.HALTED, "halt_reason": HaltReason.AGENT_FAILURE}
    )
    write_status(project.dir, status)
    return project.dir


def _env(tmp_path: Path) -> dict[str, str]:
    return {
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "PREFECT_HOME": str(tmp_path / ".prefect"),
        "PYTHONPATH": str(REPO_ROOT),
        "COLUMNS": "200",
    }


def test_the_composer_offers_a_new_action_where_its_form_or_step_takes_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    row = catalogue.PersonAction.model_construct(
        name="pause", label="Pause", cli_verb="pause", mcp_tool="pause", mcp_argument=""
    )
    monkeypatch.setitem(catalogue.ACTIONS, "pause", row)
    monkeypatch.setitem(catalogue.FORM_ACTIONS, "IntakeTurn", ("send", "pause", "terminate"))
    status = Status(phase=Phase.BRAIN_DUMP, agent="demo", created_at=NOW, updated_at=NOW)
    wait = Waiting(key="k", kind="IntakeTurn", phase=Phase.BRAIN_DUMP, chat_length=1, since=NOW)
    composer = composer_for(status, wait, run_busy=False)
    assert [a.name for a in composer.actions] == ["send", "pause", "terminate"]
    page = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True)
    shown = page.get_template("actions.html").render(composer=composer, status=status)
    assert 'data-action="pause">Pause</button>' in shown
    monkeypatch.setitem(catalogue.STEP_ACTIONS, "idle", ("send", "start", "pause"))
    idle = composer_for(status, None, run_busy=False)  # no run: the step's actions
    assert [a.name for a in idle.actions] == ["send", "start", "pause"]


def test_a_new_action_is_a_command_that_runs_its_implementation(
    write_config: Callable[..., Path], tmp_path: Path
) -> None:
    config_file = write_config()
    project_dir = _halted_project(config_file)
    run = [sys.executable, "-c", TRIAL, "--config", str(config_file)]
    env = _env(tmp_path)
    listed = subprocess.run([*run, "--help"], capture_output=True, text=True, env=env, timeout=120)
    assert "pause" in listed.stdout and "Pause the project after its current step." in listed.stdout
    done = subprocess.run(
        [*run, "pause", project_dir.name], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert f"Paused {project_dir.name}." in done.stdout
    assert (project_dir / "paused").read_text() == "paused"


def test_a_new_action_is_an_mcp_tool_that_runs_its_implementation(
    write_config: Callable[..., Path], tmp_path: Path
) -> None:
    config_file = write_config()
    project_dir = _halted_project(config_file)
    server = StdioServerParameters(
        command=sys.executable,
        args=["-c", TRIAL, "--config", str(config_file), "mcp"],
        env=_env(tmp_path),
    )

    async def drive() -> tuple[list[str], str, object]:
        with anyio.fail_after(90):
            async with Client(server) as client:
                tools = {tool.name: tool for tool in (await client.list_tools()).tools}
                called = await client.call_tool("pause", {"project_id": project_dir.name})
                return list(tools), tools["pause"].description or "", payload(called)

    names, description, outcome = anyio.run(drive)
    assert "pause" in names and description == "Pause the project after its current step."
    assert isinstance(outcome, dict) and f"Paused {project_dir.name}." in outcome["note"]
    assert (project_dir / "paused").read_text() == "paused"
