"""What happened inside an agent's CLI reaches the project's log and chat, through the call's own
path (`invoke_agent`), whether the call's answer is used or not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import AGENTS_DIR
from thoughtforge.adapters.agents import AgentCall, invoke_agent
from thoughtforge.config import CommandAgentSpec, Config
from thoughtforge.core.creation import create_project
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import read_events
from thoughtforge.core.state import read_chat

OUTPUTS = AGENTS_DIR / "cli_outputs"


@pytest.fixture
def project(config: Config) -> Project:
    return create_project(config, brain_dump="A party for twelve.")


def test_a_clis_retry_and_refused_command_are_in_the_log_and_the_chat(
    config: Config, project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REPLAY_STDOUT", str(OUTPUTS / "claude-429-rm.stream"))
    config.agents.available["claude-like"] = CommandAgentSpec(
        command=str(AGENTS_DIR / "replay_output.py"), profile="claude"
    )
    call = AgentCall(step="plan-review", project_dir=project.dir, phase="polishing", iteration=1)
    assert invoke_agent(config, "claude-like", "review", call).startswith("Built calc.py")
    said = [e["said"] for e in read_events(project.dir) if e.get("event") == "agent_inside"]
    assert said == [
        "the agent retried once after 429 Too Many Requests",
        "the agent's `rm -rf ~/canary` was refused by Claude Code's permissions",
    ]
    [told] = [m for m in read_chat(project.dir) if "retried once" in m.content]
    assert told.role == "system"
    assert told.content == (
        "Agent 'claude-like' at step 'plan-review': the agent retried once after 429 Too Many "
        "Requests; the agent's `rm -rf ~/canary` was refused by Claude Code's permissions."
    )


def test_a_call_where_nothing_happened_inside_adds_nothing(
    config: Config, project: Project, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    quiet = tmp_path / "quiet.json"
    quiet.write_text((AGENTS_DIR / "claude_code_result.json").read_text())
    monkeypatch.setenv("REPLAY_STDOUT", str(quiet))
    config.agents.available["claude-like"] = CommandAgentSpec(
        command=str(AGENTS_DIR / "replay_output.py"), profile="claude"
    )
    chat_before = len(read_chat(project.dir))
    call = AgentCall(step="plan-review", project_dir=project.dir, phase="polishing", iteration=1)
    invoke_agent(config, "claude-like", "review", call)
    assert not [e for e in read_events(project.dir) if e.get("event") == "agent_inside"]
    assert len(read_chat(project.dir)) == chat_before
