"""The start-up check that the agent a project will use can actually be run."""

from __future__ import annotations

import os
from collections.abc import Callable

from thoughtforge.adapters.agents.invoke import find_command
from thoughtforge.config import Config, OpenAIAgentSpec


def why_unavailable(config: Config, agent: str) -> str | None:
    """Why `agent` cannot be called from here (a command not on PATH, an HTTP agent's key not
    set), or None when nothing is missing. Whether the server answers is `doctor --probe`'s."""
    spec = config.agent(agent)
    if isinstance(spec, OpenAIAgentSpec):
        if spec.api_key_env and not os.environ.get(spec.api_key_env):
            return f"its key's environment variable {spec.api_key_env} is not set"
        return None
    if find_command(spec) is None:
        return f"its command '{spec.command}' is not on PATH"
    return None


def describe_agent(config: Config, agent: str) -> str:
    """What an agent is, for a person: its command, or its model and server."""
    spec = config.agent(agent)
    if isinstance(spec, OpenAIAgentSpec):
        return f"{agent} ({spec.model} at {spec.base_url})"
    return f"{agent} ({spec.command})"


def missing_agent_warning(config: Config, agent: str | None = None) -> str | None:
    """The spec's warning when the agent cannot run here; None when it can."""
    name = agent or config.agents.default
    why = why_unavailable(config, name)
    if why is None:
        return None
    spec = config.agent(name)
    if isinstance(spec, OpenAIAgentSpec):
        return f"Default agent '{name}' cannot be called: {why}."
    return (
        f"Default agent '{name}' not found on PATH. Projects will fail at first agent invocation."
    )


def warn_if_missing(config: Config, agent: str | None, emit: Callable[[str], object]) -> None:
    """For `new`: a warning, not a refusal, since creating a project calls no agent yet."""
    warning = missing_agent_warning(config, agent)
    if warning:
        emit(f"warning: {warning}")
