"""What the page's new-project form offers: the configured agents (the usable ones first, the
default picked when it is usable), the deliverable types in their own words, and the budget a
new project starts with unless the person gives one."""

from __future__ import annotations

from pydantic import BaseModel

from thoughtforge.actions.project_header import agent_choices
from thoughtforge.adapters.agents import AgentState
from thoughtforge.config import Config
from thoughtforge.phases.plugin_loader import load_plugins


class NewProjectForm(BaseModel):
    agents: list[AgentState]
    default_agent: str
    """The config's default agent when it is usable, else the first usable one ("" for none)."""
    types: dict[str, str]
    """Each deliverable type's name and its plugin's label, the default type first."""
    default_budget: str
    """"$5.00 (the config's budget)", or "no limit"."""


def new_project_form(config: Config) -> NewProjectForm:
    """The form's choices; loading the plugins imports each type's (a plugin's import may be
    slow: a door calls this off its event loop)."""
    agents = agent_choices(config)
    usable = [a.name for a in agents if a.usable]
    default = config.agents.default if config.agents.default in usable else next(iter(usable), "")
    limit = config.budget.max_usd
    return NewProjectForm(
        agents=agents,
        default_agent=default,
        types={name: plugin.label for name, plugin in load_plugins(config).items()},
        default_budget=f"${limit:,.2f} (the config's budget)" if limit else "no limit",
    )
