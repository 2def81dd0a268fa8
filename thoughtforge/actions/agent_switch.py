"""Another agent for a project (say, after an `answer_unusable` halt), the one way every door
switches it: `thoughtforge agent`, and the agent a halt's or a stuck build's decision names on the
page or over MCP (`answering.take_decision`). Checked as a run's own switch is
(`phases.human_decisions.switch_agent`): an agent not configured, or one that cannot be called
from here, is refused, and so is a finished project."""

from __future__ import annotations

from thoughtforge.config import Config
from thoughtforge.core.project import Project
from thoughtforge.core.state import Status
from thoughtforge.phases import human_decisions


def switch_agent(config: Config, project: Project, agent: str) -> Status:
    """The project with `agent` as its agent from its next call on."""
    return human_decisions.switch_agent(project, config, agent)
