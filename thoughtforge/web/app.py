"""The workbench's routes: pages, the fragments the live stream sends, and the few actions.

Each endpoint is small: it reads the request, calls the module that does the work, and renders a
template. Blocking work (files, git, Prefect's REST API) runs in Starlette's thread pool. The
config is re-read when its file changes (`LiveConfig`), as the board and the bell do. The
endpoints live by area in `endpoints/`; what they share (the `Workbench`, rendering) in
`workbench`.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from thoughtforge.config import Config, LiveConfig
from thoughtforge.errors import ThoughtForgeError, schema_problems
from thoughtforge.serving.guard import RequestGuard, new_token
from thoughtforge.web.endpoints.events import events
from thoughtforge.web.endpoints.history import diff_page, history_page, restore
from thoughtforge.web.endpoints.pages import (
    board_page,
    cards_json,
    earlier_messages,
    health,
    home,
    new_project_page,
    thread_page,
)
from thoughtforge.web.endpoints.project_actions import (
    answer,
    archive,
    budget,
    create_project,
    draft,
    drop_file,
    edit_draft,
    unarchive,
)
from thoughtforge.web.endpoints.prompts import prompt_page, prompts_page, reset_prompt, save_prompt
from thoughtforge.web.workbench import Workbench, page

HERE = Path(__file__).parent


def create_app(config_file: Path, config: Config, token: str | None = None) -> Starlette:
    templates = Jinja2Templates(directory=HERE / "templates")
    workbench = Workbench(
        config_file, LiveConfig(config_file, config), token or new_token(), templates
    )
    app = Starlette(
        routes=ROUTES,
        middleware=[
            Middleware(
                RequestGuard,
                token=workbench.token,
                port=config.web.port,
                allowed_hosts=config.web.allowed_hosts,
            )
        ],
        exception_handlers={ThoughtForgeError: _refused, ValidationError: _invalid},
    )
    app.state.workbench = workbench
    return app


async def _refused(request: Request, exc: Exception) -> Response:
    if request.method in ("GET", "HEAD"):
        return page(request, "error.html", {"title": "Error", "error": str(exc)}, status=400)
    return JSONResponse({"error": str(exc)}, status_code=409)


async def _invalid(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ValidationError)
    return JSONResponse({"error": f"bad request: {schema_problems(exc)}"}, status_code=400)


ROUTES = [
    Route("/", home),
    Route("/health", health),
    Route("/projects/new", new_project_page),
    Route("/projects", create_project, methods=["POST"]),
    Route("/projects/{project_id}", thread_page),
    Route("/projects/{project_id}/messages", earlier_messages),
    Route("/projects/{project_id}/answer", answer, methods=["POST"]),
    Route("/projects/{project_id}/files", drop_file, methods=["POST"]),
    Route("/projects/{project_id}/history", history_page),
    Route("/projects/{project_id}/history/{item}", diff_page),
    Route("/projects/{project_id}/rollback", restore, methods=["POST"]),
    Route("/projects/{project_id}/draft", draft),
    Route("/projects/{project_id}/draft", edit_draft, methods=["POST"]),
    Route("/projects/{project_id}/budget", budget, methods=["POST"]),
    Route("/projects/{project_id}/archive", archive, methods=["POST"]),
    Route("/projects/{project_id}/unarchive", unarchive, methods=["POST"]),
    Route("/events", events),
    Route("/board", board_page),
    Route("/cards.json", cards_json),
    Route("/settings/prompts", prompts_page),
    Route("/settings/prompts/{name}", prompt_page),
    Route("/settings/prompts/{name}", save_prompt, methods=["POST"]),
    Route("/settings/prompts/{name}/reset", reset_prompt, methods=["POST"]),
    Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
]
