"""The workbench's routes: pages, the fragments the live stream sends, and the few actions.

Each endpoint is small: it reads the request, calls the module that does the work, and renders a
template. Blocking work (files, git, Prefect's REST API) runs in Starlette's thread pool. The
config is re-read when its file changes (`LiveConfig`), as the board and the bell do.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from thoughtforge.board.cards import COLUMNS, board_cards, by_column, sparkline
from thoughtforge.board.text import START_HINT
from thoughtforge.config import Config, LiveConfig
from thoughtforge.core import Project, current_wait, open_project, read_thread, utc_now
from thoughtforge.errors import ProjectError, ThoughtForgeError, schema_problems
from thoughtforge.web import live, prompt_editing
from thoughtforge.web.answers import Answer, current_composer, take_answer
from thoughtforge.web.guard import RequestGuard, new_token
from thoughtforge.web.inbox import inbox
from thoughtforge.web.launch import NewProject, create_from_page, start_run
from thoughtforge.web.progress import panel_for
from thoughtforge.web.thread import PAGE_SIZE, newest_page_start, views
from thoughtforge.web.uploads import save_upload

HERE = Path(__file__).parent
TICK_SECONDS = 0.25
STATE_EVERY_SECONDS = 1.0
INBOX_EVERY_SECONDS = 2.0
MAX_UPLOAD_READ = 512 * 1024 * 1024
"""Past this a body is not read at all, whatever `resources.max_file_bytes` says."""


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


def create_app(config_file: Path, config: Config, token: str | None = None) -> Starlette:
    templates = Jinja2Templates(directory=HERE / "templates")
    templates.env.filters["sparkline"] = sparkline
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


# --- pages -------------------------------------------------------------------------------------


async def home(request: Request) -> Response:
    return _page(request, "home.html", {"title": "Inbox"})


async def health(request: Request) -> Response:
    """What `up` asks before it says the page is ready (the same path as Prefect's)."""
    return PlainTextResponse("ok")


async def new_project_page(request: Request) -> Response:
    config = _bench(request).config
    agents = sorted(config.agents.available)
    return _page(
        request,
        "new.html",
        {"title": "New project", "agents": agents, "default": config.agents.default},
    )


async def thread_page(request: Request) -> Response:
    project = await _project(request)
    chat = await run_in_threadpool(read_thread, project.dir)
    start = newest_page_start(len(chat))
    context = {
        "title": project.id,
        "project": project,
        "messages": views(chat, start),
        "earlier": start,
        "count": len(chat),
        **await run_in_threadpool(_project_state, request, project),
        "panel": await run_in_threadpool(_panel, project),
    }
    return _page(request, "thread.html", context)


async def earlier_messages(request: Request) -> Response:
    project = await _project(request)
    before = _int(request.query_params.get("before"), 0)
    chat = await run_in_threadpool(read_thread, project.dir)
    start = max(before - PAGE_SIZE, 0)
    html = _render(request, "messages.html", {"messages": views(chat, start, before)})
    return JSONResponse({"html": html, "earlier": start})


async def board_page(request: Request) -> Response:
    context = await run_in_threadpool(_board_context, request)
    return _page(request, "board.html", {"title": "Board", **context})


async def cards_json(request: Request) -> Response:
    cards = await run_in_threadpool(board_cards, _bench(request).config)
    return JSONResponse([card.model_dump(mode="json") for card in cards])


async def prompts_page(request: Request) -> Response:
    names = prompt_editing.prompt_names(_bench(request).config)
    return _page(request, "prompts.html", {"title": "Prompts", "names": names})


async def prompt_page(request: Request) -> Response:
    config = _bench(request).config
    prompt = prompt_editing.read_prompt(config, request.path_params["name"])
    return _page(request, "prompt.html", {"title": prompt.name, "prompt": prompt})


# --- actions -------------------------------------------------------------------------------------


async def create_project(request: Request) -> Response:
    bench = _bench(request)
    wanted = NewProject.model_validate(await request.json())
    project = await run_in_threadpool(create_from_page, bench.config, wanted)
    started = await run_in_threadpool(start_run, bench.config, bench.config_file, project)
    return JSONResponse(
        {"project_id": project.id, "url": f"/projects/{project.id}", "note": started.note}
    )


async def reply(request: Request) -> Response:
    bench = _bench(request)
    project = await _project(request)
    answer = Answer.model_validate(await request.json())
    outcome = await run_in_threadpool(take_answer, bench.config, bench.config_file, project, answer)
    return JSONResponse(outcome.model_dump())


async def drop_file(request: Request) -> Response:
    config = _bench(request).config
    project = await _project(request)
    name = unquote(request.headers.get("x-file-name", ""))
    if not name.strip():
        raise ThoughtForgeError("the file has no name (X-File-Name)")
    data = await _body(request, config.resources.max_file_bytes)
    saved = await run_in_threadpool(save_upload, config, project, name, data)
    return JSONResponse({"saved": saved, "note": f"Added resources/{saved}."})


async def save_prompt(request: Request) -> Response:
    body = await request.json()
    text = body.get("text") if isinstance(body, dict) else None
    if not isinstance(text, str):
        raise ThoughtForgeError('send the prompt as {"text": "…"}')
    name = request.path_params["name"]
    path = await run_in_threadpool(prompt_editing.save_prompt, _bench(request).config, name, text)
    return JSONResponse({"note": f"Saved to {path}; the next agent call uses it."})


async def reset_prompt(request: Request) -> Response:
    name = request.path_params["name"]
    await run_in_threadpool(prompt_editing.reset_prompt, _bench(request).config, name)
    return JSONResponse({"note": f"{name} is the built-in prompt again."})


# --- the live stream -----------------------------------------------------------------------------


async def events(request: Request) -> Response:
    """Server-Sent Events: `hello` (the token), then `message`, `state`, `panel`, `inbox` (and
    `board`, for the board page) whenever what they show changes. A page that reconnects passes
    how many messages it has (`after`) and gets only the rest."""
    project_id = request.query_params.get("project")
    project = await _project(request, project_id) if project_id else None
    after = _int(request.query_params.get("after"), 0)
    return StreamingResponse(
        _stream(request, project, after),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


async def _stream(request: Request, project: Project | None, after: int) -> AsyncIterator[str]:
    bench = _bench(request)
    yield live.sse("hello", {"token": bench.token})
    seen: dict[str, Any] = {"after": after}
    last_state = last_inbox = 0.0
    loop = asyncio.get_running_loop()
    while not await request.is_disconnected():
        now = loop.time()
        if now - last_inbox >= INBOX_EVERY_SECONDS:
            last_inbox = now
            stamp = await run_in_threadpool(live.inbox_stamp, bench.config)
            if seen.get("inbox") != stamp:
                seen["inbox"] = stamp
                html = await run_in_threadpool(_render_sidebar, request)
                yield live.sse("inbox", {"html": html})
                if request.query_params.get("view") == "board":
                    board = await run_in_threadpool(_board_context, request)
                    yield live.sse("board", {"html": _render(request, "board_columns.html", board)})
        if project is not None:
            async for event in _project_events(request, project, seen, now - last_state):
                yield event
            if now - last_state >= STATE_EVERY_SECONDS:
                last_state = now
        await asyncio.sleep(TICK_SECONDS)


async def _project_events(
    request: Request, project: Project, seen: dict[str, Any], since_state: float
) -> AsyncIterator[str]:
    """The project's changes since the last tick; `seen` keeps what the page has."""
    chat_stamp = await run_in_threadpool(live.chat_stamp, project.dir)
    if seen.get("chat") != chat_stamp:
        seen["chat"] = chat_stamp
        chat = await run_in_threadpool(read_thread, project.dir)
        for view in views(chat, seen["after"]):
            html = _render(request, "message.html", {"m": view})
            seen["after"] = view.index + 1
            yield live.sse("message", {"index": view.index, "html": html}, event_id=view.index + 1)
    panel_stamp = await run_in_threadpool(live.stamp, project.dir, live.PANEL_FILES)
    if seen.get("panel") != panel_stamp:
        seen["panel"] = panel_stamp
        panel = await run_in_threadpool(_panel, project)
        html = _render(request, "panel.html", {"panel": panel, "project": project})
        if seen.get("panel_html") != html:
            seen["panel_html"] = html
            yield live.sse("panel", {"html": html})
    state_stamp = await run_in_threadpool(live.stamp, project.dir, live.STATE_FILES)
    if seen.get("state") != state_stamp or since_state >= STATE_EVERY_SECONDS:
        seen["state"] = state_stamp
        state = await run_in_threadpool(_project_state, request, project)
        fragments = {
            "header": _render(request, "project_header.html", {"project": project, **state}),
            "actions": _render(request, "actions.html", state),
            "work": _render(request, "work.html", state),
        }
        if seen.get("fragments") != fragments:
            seen["fragments"] = fragments
            yield live.sse("state", fragments)


# --- helpers of the endpoints ----------------------------------------------------------------


def _bench(request: Request) -> Workbench:
    return request.app.state.workbench  # type: ignore[no-any-return]


async def _project(request: Request, project_id: str | None = None) -> Project:
    wanted = project_id or request.path_params["project_id"]
    try:
        return await run_in_threadpool(open_project, _bench(request).config, wanted)
    except ProjectError as exc:
        raise HTTPException(404, str(exc)) from None


def _project_state(request: Request, project: Project) -> dict[str, Any]:
    """What the header, the composer and the work line show."""
    config = _bench(request).config
    status = project.status()
    return {
        "status": status,
        "waiting": current_wait(project.dir),
        "composer": current_composer(config, project),
        "work": live.work_line(project, utc_now()),
        "run_page": _run_page(config, project),
    }


def _run_page(config: Config, project: Project) -> str | None:
    """The project's latest run in the Prefect UI (the classic run page, where Resume is)."""
    from thoughtforge.server.api import PrefectApi, PrefectApiError, find_api

    waiting = current_wait(project.dir)
    url = (waiting.api_url if waiting else None) or find_api(config)
    if url is None:
        return None
    try:
        run = PrefectApi(url).latest_run(project.id)
    except PrefectApiError:
        return None
    return f"{url.removesuffix('/api')}/runs/flow-run/{run.id}" if run else None


def _panel(project: Project) -> Any:
    return panel_for(project, project.status())


def _render(request: Request, name: str, context: dict[str, Any]) -> str:
    return _bench(request).templates.get_template(name).render({"request": request, **context})


def _board_context(request: Request) -> dict[str, Any]:
    cards = board_cards(_bench(request).config)
    return {
        "columns": by_column(cards),
        "titles": COLUMNS,
        "any_cards": bool(cards),
        "start_hint": START_HINT,
    }


def _render_sidebar(request: Request) -> str:
    return _render(request, "sidebar.html", {"inbox": inbox(_bench(request).config)})


def _page(request: Request, name: str, context: dict[str, Any], status: int = 200) -> HTMLResponse:
    bench = _bench(request)
    full = {"token": bench.token, "inbox": inbox(bench.config), **context}
    return bench.templates.TemplateResponse(request, name, full, status_code=status)


async def _body(request: Request, limit: int) -> bytes:
    """The request body, refused past `limit` bytes without reading the rest."""
    declared = _int(request.headers.get("content-length"), 0)
    if declared > limit:
        raise ThoughtForgeError(_too_large(declared, limit))
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > min(limit, MAX_UPLOAD_READ):
            raise ThoughtForgeError(_too_large(len(data), limit))
    return bytes(data)


def _too_large(size: int, limit: int) -> str:
    return (
        f"The file is over resources.max_file_bytes ({limit:,} bytes; it has at least {size:,}). "
        "Nothing was saved."
    )


def _int(value: str | None, default: int) -> int:
    try:
        return max(int(value or default), 0)
    except ValueError:
        return default


async def _refused(request: Request, exc: Exception) -> Response:
    if request.method in ("GET", "HEAD"):
        return _page(request, "error.html", {"title": "Error", "error": str(exc)}, status=400)
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
    Route("/projects/{project_id}/reply", reply, methods=["POST"]),
    Route("/projects/{project_id}/files", drop_file, methods=["POST"]),
    Route("/events", events),
    Route("/board", board_page),
    Route("/cards.json", cards_json),
    Route("/settings/prompts", prompts_page),
    Route("/settings/prompts/{name}", prompt_page),
    Route("/settings/prompts/{name}", save_prompt, methods=["POST"]),
    Route("/settings/prompts/{name}/reset", reset_prompt, methods=["POST"]),
    Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
]
