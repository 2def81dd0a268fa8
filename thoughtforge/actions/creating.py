"""A project made from a brain dump the command line read (a file, standard input) and resource
files on disk: `thoughtforge new`, and `run` before it runs the project in its own process (the
page and MCP make theirs from a request: `starting.create_from_request`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from thoughtforge.adapters.agents import warn_if_missing, why_unavailable
from thoughtforge.adapters.agents.kinds import cli_names
from thoughtforge.config import Config
from thoughtforge.core.creation import check_distillable, create_project
from thoughtforge.core.project import Project
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.phases.plugin_loader import load_plugins

DEMO_AGENT = "demo"


class RunAgent(BaseModel):
    """The agent a run will call."""

    name: str
    real_agents: str | None
    """For the scripted demo agent, the agents `agents.default` may name for real work."""


def ready_to_run(config: Config, agent: str | None) -> RunAgent:
    """The deliverable types imported (a broken plugin folder is refused before the project is
    created), and the agent asked for or the configured default: never silently another one.

    A run whose real agent is missing must not turn into canned text from the demo agent.
    """
    load_plugins(config)
    chosen = agent or config.agents.default
    why = why_unavailable(config, chosen)
    if why is not None:
        raise ThoughtForgeError(
            f"agent '{chosen}' cannot run: {why}. Install it and log in (or set the key), or "
            f"choose another agent with --agent (--agent {DEMO_AGENT} runs the "
            "scripted demo, which is not an AI). `thoughtforge doctor` checks the set-up."
        )
    return RunAgent(name=chosen, real_agents=cli_names() if chosen == DEMO_AGENT else None)


def create(
    config: Config,
    brain_dump: str,
    resources: list[Path],
    agent: str | None,
    *,
    warn: Callable[[str], object] | None = None,
) -> Project:
    """The project, once its brain dump is found worth distilling; `warn` hears that the agent
    asked for is missing (a warning, not a refusal: creating a project calls no agent yet)."""
    check_distillable(config, brain_dump)
    if warn is not None:
        warn_if_missing(config, agent, warn)
    return create_project(config, brain_dump=brain_dump, resources=resources, agent=agent)
