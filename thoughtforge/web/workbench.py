"""What every endpoint of the workbench shares: the config (followed as its file changes), the
token and the templates, and the small steps each endpoint takes: find the project a request
names, render a template or a whole page, read a number from a query."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.templating import Jinja2Templates

from thoughtforge.actions.inbox import inbox
from thoughtforge.actions.project_page import project_named
from thoughtforge.config import Config, LiveConfig
from thoughtforge.core.project import Project
from thoughtforge.errors import ProjectError


@dataclass
class Workbench:
    """What every endpoint shares: the config (followed as its file changes), the token."""

    config_file: Path
    live_config: LiveConfig
    token: str
    templates: Jinja2Templates

    @property
    def config(self) -> Config:
        return self.live_config.current()


def workbench_of(request: Request) -> Workbench:
    bench: Workbench = request.app.state.workbench
    return bench


async def requested_project(request: Request, project_id: str | None = None) -> Project:
    wanted = project_id or request.path_params["project_id"]
    try:
        return await run_in_threadpool(project_named, workbench_of(request).config, wanted)
    except ProjectError as exc:
        raise HTTPException(404, str(exc)) from None


def render(request: Request, name: str, context: dict[str, Any]) -> str:
    return (
        workbench_of(request).templates.get_template(name).render({"request": request, **context})
    )


def page(request: Request, name: str, context: dict[str, Any], status: int = 200) -> HTMLResponse:
    bench = workbench_of(request)
    full = {"token": bench.token, "inbox": inbox(bench.config), **context}
    return bench.templates.TemplateResponse(request, name, full, status_code=status)


def natural_number(value: str | None, default: int) -> int:
    try:
        return max(int(value or default), 0)
    except ValueError:
        return default
