"""`thoughtforge chat ID`: the thread in a terminal, labelled by phase, followed as it grows, and
never a way for an agent's text to drive the terminal."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from thoughtforge.config import Config
from thoughtforge.core.creation import create_project
from thoughtforge.core.project import Project
from thoughtforge.core.state import ChatMessage, append_chat
from thoughtforge.models import Phase

TF = [sys.executable, "-m", "thoughtforge"]
OSC52 = "\x1b]52;c;ZWNobyBwd25lZA==\x07"


@pytest.fixture
def project(config: Config) -> Project:
    project = create_project(config, brain_dump="Plan a wedding for sixty in June.")
    append_chat(
        project.dir,
        ChatMessage(
            role="ai", content=f"## Objective\nA wedding.{OSC52}\x1b[2J", phase=Phase.DISTILLING
        ),
    )
    return project


def _chat(config_file: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*TF, "--config", str(config_file), "chat", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "COLUMNS": "100"},
    )


def test_chat_prints_every_message_with_who_phase_and_time(project: Project) -> None:
    result = _chat(project.dir.parent.parent / "config.yaml", project.id)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("You  Phase 1 · brain dump · ") and lines[0].endswith(" UTC")
    assert lines[1] == "Plan a wedding for sixty in June."
    assert any(line.startswith("ThoughtForge  Phase 1 · distilling · ") for line in lines)
    assert "## Objective" in result.stdout


def test_escape_sequences_from_an_agent_are_shown_never_sent_to_the_terminal(
    project: Project,
) -> None:
    result = _chat(project.dir.parent.parent / "config.yaml", project.id)
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert "A wedding.\\x1b]52;c;ZWNobyBwd25lZA==\\x07\\x1b[2J" in result.stdout


def test_last_prints_only_the_newest(project: Project) -> None:
    result = _chat(project.dir.parent.parent / "config.yaml", project.id, "--last", "1")
    assert "Plan a wedding" not in result.stdout and "## Objective" in result.stdout


def test_follow_prints_new_messages_as_they_arrive_until_ctrl_c(project: Project) -> None:
    config_file = project.dir.parent.parent / "config.yaml"
    follower = subprocess.Popen(
        [*TF, "--config", str(config_file), "chat", project.id, "--follow"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={"PATH": "/usr/bin:/bin", "COLUMNS": "100"},
    )
    try:
        assert follower.stdout is not None
        while "## Objective" not in follower.stdout.readline():
            pass
        append_chat(
            project.dir,
            ChatMessage(role="human", content="Make it September.", phase=Phase.HUMAN_REVIEW),
        )
        while (line := follower.stdout.readline()) and "Make it September." not in line:
            pass
        assert line.strip() == "Make it September."
        follower.send_signal(signal.SIGINT)
        assert follower.wait(timeout=10) == 0
    finally:
        follower.kill()


def test_an_unknown_project_is_one_line(config: Config, tmp_path: Path) -> None:
    result = _chat(tmp_path / "config.yaml", "20990101-none-0000")
    assert result.returncode == 1 and result.stderr.startswith("error: no project")
