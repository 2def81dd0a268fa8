"""The start-up check that the agent a project will use can actually be run."""

from __future__ import annotations

from collections.abc import Callable

from thoughtforge.adapters.agents.invoke import find_command
from thoughtforge.config import Config


def missing_agent_warning(config: Config, agent: str | None = None) -> str | None:
    """The spec's warning when the agent's command is not on PATH; None when it is."""
    name = agent or config.agents.default
    if find_command(config.agent(name)) is not None:
        return None
    return (
        f"Default agent '{name}' not found on PATH. Projects will fail at first agent invocation."
    )


def warn_if_missing(config: Config, agent: str | None, emit: Callable[[str], object]) -> None:
    """For `new`: a warning, not a refusal, since creating a project calls no agent yet."""
    warning = missing_agent_warning(config, agent)
    if warning:
        emit(f"warning: {warning}")
