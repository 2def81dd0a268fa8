"""A project from the command line's brain dump: too short a brain dump is refused before a
project exists, a missing agent is a warning for `new` and a refusal for `run`, and the scripted
demo agent comes with the agents for real work."""

from __future__ import annotations

import pytest

from tests.conftest import BRAIN_DUMP
from thoughtforge.actions.creating import DEMO_AGENT, create, ready_to_run
from thoughtforge.config import Config
from thoughtforge.core.project import list_projects
from thoughtforge.errors import ThoughtForgeError


def test_a_brain_dump_too_short_to_distil_makes_no_project(config: Config) -> None:
    with pytest.raises(ThoughtForgeError, match="characters"):
        create(config, "too short", [], None)
    assert list_projects(config) == []


def test_new_warns_of_a_missing_agent_and_makes_the_project(config: Config) -> None:
    warned: list[str] = []

    project = create(config, BRAIN_DUMP, [], "claude", warn=warned.append)

    assert project.dir.is_dir()
    assert len(warned) == 1 and warned[0].startswith("warning: ") and "claude" in warned[0]


def test_run_refuses_a_missing_agent_and_names_the_demo_for_the_demo(config: Config) -> None:
    with pytest.raises(ThoughtForgeError, match="agent 'claude' cannot run"):
        ready_to_run(config, "claude")

    demo = ready_to_run(config, None)
    assert demo.name == DEMO_AGENT == config.agents.default
    assert demo.real_agents is not None and "claude" in demo.real_agents
