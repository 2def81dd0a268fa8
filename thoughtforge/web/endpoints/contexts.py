"""What a page and the live stream both render: a project's header, composer and work line, its
progress panel, the board's columns, the inbox sidebar."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request

from thoughtforge.actions.board_page import board_page
from thoughtforge.actions.composer import Composer
from thoughtforge.actions.draft import open_items
from thoughtforge.actions.inbox import inbox
from thoughtforge.actions.project_header import page_header
from thoughtforge.actions.project_page import project_page
from thoughtforge.config import Config
from thoughtforge.core.project import Project
from thoughtforge.core.state import utc_now
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
    header = page_header(config, page, switches_agent=composer.switches_agent)
    return {
        "status": status,
        "run": page.run,
        "title": header.title,
        "asked_type": header.asked_type,
        "phase_words": header.phase_words,
        "waiting": page.waiting,
        "composer": composer,
        "agents": header.agents,
        "work": live.work_line(project, utc_now()),
        "run_page": header.run_page,
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


def panel_of(config: Config, project: Project) -> Any:
    status = project.status()
    return panel_for(project, status, plugin_for(config, status.deliverable_type))


def board_context(request: Request) -> dict[str, Any]:
    return dict(board_page(workbench_of(request).config))


def render_sidebar(request: Request) -> str:
    return render(request, "sidebar.html", {"inbox": inbox(workbench_of(request).config)})
