"""What the page's header says of a project beyond its model (`project_page`): its working
title (its name, or the first words of its brain dump until Phase 1 names it), the type asked
for with the brain dump, its phase in words, the agents a decision may go on with, and its
latest run's page in the Prefect UI."""

from __future__ import annotations

from pydantic import BaseModel

from thoughtforge.actions.project_page import ProjectPage
from thoughtforge.adapters.agents import AgentState, agent_state
from thoughtforge.board.words import phase_words, working_title
from thoughtforge.config import Config
from thoughtforge.core.creation import asked_type
from thoughtforge.core.project import Project
from thoughtforge.core.state import ChatMessage, Status, read_chat
from thoughtforge.errors import StateFileError
from thoughtforge.stack.api import PrefectApi, ask_prefect


class PageHeader(BaseModel):
    title: str
    asked_type: str | None
    """The type asked for with the brain dump, until Phase 1 decides it."""
    phase_words: str
    agents: list[AgentState]
    """Every configured agent with its state, while the decision offered may switch agents."""
    run_page: str | None
    """The project's latest run in the Prefect UI (the classic run page, where Resume is)."""


def page_header(config: Config, page: ProjectPage, *, switches_agent: bool) -> PageHeader:
    status, project = page.status, page.project
    early_chat = _phase_one_chat(project, status)
    return PageHeader(
        title=working_title(status, early_chat, project.id),
        asked_type=_asked_type(status, early_chat),
        phase_words=phase_words(status),
        agents=agent_choices(config) if switches_agent else [],
        run_page=_run_page(config, project),
    )


def agent_choices(config: Config) -> list[AgentState]:
    """Every configured agent with its state (`doctor`'s), the usable ones first."""
    states = [agent_state(config, name) for name in sorted(config.agents.available)]
    return sorted(states, key=lambda s: not s.usable)


def titled(project: Project, fallback: str) -> str:
    """The project's working title (`fallback` until its brain dump gives one)."""
    return working_title(project.status(), read_chat(project.dir), fallback)


def _asked_type(status: Status, chat: list[ChatMessage]) -> str | None:
    if status.deliverable_type is not None:
        return None
    return next((asked_type(m.content) for m in chat if m.role == "human"), None)


def _phase_one_chat(project: Project, status: Status) -> list[ChatMessage]:
    """What a working title and the asked-for type are made from: only read while the project
    has no name or no type."""
    if status.project_name and status.deliverable_type is not None:
        return []
    try:
        return read_chat(project.dir)
    except StateFileError:
        return []


def _run_page(config: Config, project: Project) -> str | None:
    def page_of(api: PrefectApi) -> str | None:
        run = api.latest_run(project.id)
        return f"{api.url.removesuffix('/api')}/runs/flow-run/{run.id}" if run else None

    return ask_prefect(config, page_of, None, project.dir)
