"""The start-up check that the agent a project will use can actually be run."""

from __future__ import annotations

import os
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel

from thoughtforge.adapters.agents.command_agent import find_command
from thoughtforge.adapters.agents.kinds import cli_kind
from thoughtforge.config import CommandAgentSpec, Config, OpenAIAgentSpec


def why_unavailable(config: Config, agent: str) -> str | None:
    """Why `agent` cannot be called from here (a command not on PATH, an HTTP agent's key not
    set), or None when nothing is missing. Whether the server replies is `doctor --probe`'s."""
    spec = config.agent(agent)
    if isinstance(spec, OpenAIAgentSpec):
        if spec.api_key_env and not os.environ.get(spec.api_key_env):
            return f"its key's environment variable {spec.api_key_env} is not set"
        return None
    if find_command(spec) is None:
        return f"its command '{spec.command}' is not on PATH"
    return None


def why_not_logged_in(config: Config, agent: str) -> str | None:
    """For an agent CLI with a profile: why it is not logged in here, and the command that
    fixes it; None for any other agent or when a login is found."""
    spec = config.agent(agent)
    kind = cli_kind(spec.profile) if isinstance(spec, CommandAgentSpec) else None
    return None if kind is None else kind.missing_login(os.environ)


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


AgentStateName = Literal["installed", "reachable", "not reachable", "not found"]
REACH_TIMEOUT_SECONDS = 0.5
"""An HTTP agent's server is asked this long whether it is there (a page waits on it)."""
REACH_MEMORY_SECONDS = 30.0
_reached: dict[str, tuple[float, bool]] = {}


class AgentState(BaseModel):
    """Whether an agent can be chosen here, as `doctor` judges it without calling the agent: a
    command found on PATH is `installed`; an HTTP agent whose server replies is `reachable`, one
    whose server does not reply `not reachable` (it may be started later); a missing command or
    key is `not found`, with why."""

    name: str
    state: AgentStateName
    detail: str

    @property
    def usable(self) -> bool:
        return self.state != "not found"


def agent_state(config: Config, agent: str) -> AgentState:
    why = why_unavailable(config, agent)
    if why is not None:
        return AgentState(name=agent, state="not found", detail=why)
    spec = config.agent(agent)
    if not isinstance(spec, OpenAIAgentSpec):
        return AgentState(name=agent, state="installed", detail=describe_agent(config, agent))
    replies = _replies(str(spec.base_url))
    return AgentState(
        name=agent,
        state="reachable" if replies else "not reachable",
        detail=describe_agent(config, agent),
    )


def _replies(url: str) -> bool:
    """Whether anything replies HTTP at `url` (any status: a 401 or 404 is a server that is
    there); remembered for `REACH_MEMORY_SECONDS`, since a page asks each time it redraws."""
    now = time.monotonic()
    remembered = _reached.get(url)
    if remembered is not None and now - remembered[0] < REACH_MEMORY_SECONDS:
        return remembered[1]
    try:
        with urllib.request.urlopen(url, timeout=REACH_TIMEOUT_SECONDS):
            replied = True
    except urllib.error.HTTPError:
        replied = True
    except (OSError, ValueError):
        replied = False
    _reached[url] = (now, replied)
    return replied
