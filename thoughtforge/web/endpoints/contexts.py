"""What a page and the live stream both render: a project's header, composer and work line, its
progress panel, the board's columns, the inbox sidebar."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request

from thoughtforge.actions.composer import Composer
from thoughtforge.actions.draft import open_items
from thoughtforge.actions.inbox import inbox
from thoughtforge.actions.project_page import project_named, project_page
from thoughtforge.adapters.agents import AgentState, agent_state
from thoughtforge.board.cards import COLUMNS, Card, board_cards, by_column
from thoughtforge.board.text import START_HINT
from thoughtforge.board.words import phase_words, working_title
from thoughtforge.config import Config
from thoughtforge.core import (
    ChatMessage,
    Project,
    Status,
    read_chat,
    utc_now,
)
from thoughtforge.core.creation import asked_type
from thoughtforge.errors import StateFileError, ThoughtForgeError
from thoughtforge.phases.plugin_loader import plugin_for
from thoughtforge.web import live
from thoughtforge.web.pane import pane_head
from thoughtforge.web.progress import panel_for
from thoughtforge.web.workbench import render, workbench_of


def project_state(request: Request, project: Project) -> dict[str, Any]:
    """What the header, the composer, the work line and the deliverable pane's head show: the
    project's page model (`actions.project_page`, one read of its view) and the page's words."""
    config = workbench_of(request).config
    page = project_page(config, project)
    status, composer = page.status, _offered(page.composer, project)
    early_chat = _phase_one_chat(project, status)
    return {
        "status": status,
        "run": page.run,
        "title": working_title(status, early_chat, project.id),
        "asked_type": _asked_type(status, early_chat),
        "phase_words": phase_words(status),
        "waiting": page.waiting,
        "composer": composer,
        "agents": agent_choices(config) if composer.switches_agent else [],
        "work": live.work_line(project, utc_now()),
        "run_page": _run_page(config, project),
        "spend": page.spend,
        "revision": page.revision,
        "stale": page.stale,
        "pane": pane_head(status.phase, status.halted_from, stopped=composer.allows("start")),
    }


def _offered(composer: Composer, project: Project) -> Composer:
    """ "Confirm, open items unresolved" only while the spec proposal has open items to accept."""
    if not composer.allows("accept_unresolved") or open_items(project):
        return composer
    kept = [action for action in composer.actions if action.name != "accept_unresolved"]
    return composer.model_copy(update={"actions": kept})


def agent_choices(config: Config) -> list[AgentState]:
    """Every configured agent with its state (`doctor`'s), the usable ones first."""
    states = [agent_state(config, name) for name in sorted(config.agents.available)]
    return sorted(states, key=lambda s: not s.usable)


def _asked_type(status: Status, chat: list[ChatMessage]) -> str | None:
    """The type asked for with the brain dump, until Phase 1 decides it."""
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
    """The project's latest run in the Prefect UI (the classic run page, where Resume is)."""
    from thoughtforge.stack.api import PrefectApi, ask_prefect

    def page_of(api: PrefectApi) -> str | None:
        run = api.latest_run(project.id)
        return f"{api.url.removesuffix('/api')}/runs/flow-run/{run.id}" if run else None

    return ask_prefect(config, page_of, None, project.dir)


def panel_of(config: Config, project: Project) -> Any:
    status = project.status()
    return panel_for(project, status, plugin_for(config, status.deliverable_type))


def board_context(request: Request) -> dict[str, Any]:
    config = workbench_of(request).config
    cards = [_titled(config, card) for card in board_cards(config)]
    terminated = [card for card in cards if card.badge == "TERMINATED"]
    return {
        "columns": by_column([card for card in cards if card not in terminated]),
        "terminated": terminated,
        "titles": COLUMNS,
        "any_cards": bool(cards),
        "start_hint": START_HINT,
    }


def _titled(config: Config, card: Card) -> Card:
    """A card of a project Phase 1 has not named yet is titled by its brain dump's first
    words, as the inbox and its page are."""
    if card.name != card.project_id or card.badge == "UNREADABLE":
        return card
    try:
        project = project_named(config, card.project_id)
        title = working_title(project.status(), read_chat(project.dir), card.name)
    except ThoughtForgeError:
        return card
    return card.model_copy(update={"name": title})


def render_sidebar(request: Request) -> str:
    return render(request, "sidebar.html", {"inbox": inbox(workbench_of(request).config)})
