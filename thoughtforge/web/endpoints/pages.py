"""The pages: the inbox, a new project's form, a project's thread (and its earlier messages),
the board (and its cards as JSON)."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response

from thoughtforge.actions.board_page import cards
from thoughtforge.actions.new_project_form import new_project_form
from thoughtforge.actions.thread import project_thread
from thoughtforge.web.endpoints.contexts import (
    board_context,
    panel_of,
    project_state,
)
from thoughtforge.web.thread import PAGE_SIZE, newest_page_start, views
from thoughtforge.web.workbench import natural_number, page, render, requested_project, workbench_of


async def home(request: Request) -> Response:
    return page(request, "home.html", {"title": "Inbox"})


async def health(request: Request) -> Response:
    """What `up` asks before it says the page is ready (the same path as Prefect's)."""
    return PlainTextResponse("ok")


async def new_project_page(request: Request) -> Response:
    form = await run_in_threadpool(new_project_form, workbench_of(request).config)
    context = {
        "title": "New project",
        "agents": form.agents,
        "types": form.types,
        "default_budget": form.default_budget,
    }
    return page(request, "new.html", {**context, "default": form.default_agent})


async def thread_page(request: Request) -> Response:
    project = await requested_project(request)
    chat = await run_in_threadpool(project_thread, project)
    start = newest_page_start(len(chat))
    state = await run_in_threadpool(project_state, request, project)
    context = {
        **state,
        "project": project,
        "messages": views(chat, start),
        "earlier": start,
        "count": len(chat),
        "panel": await run_in_threadpool(panel_of, workbench_of(request).config, project),
    }
    return page(request, "thread.html", context)


async def earlier_messages(request: Request) -> Response:
    project = await requested_project(request)
    before = natural_number(request.query_params.get("before"), 0)
    chat = await run_in_threadpool(project_thread, project)
    start = max(before - PAGE_SIZE, 0)
    html = render(request, "messages.html", {"messages": views(chat, start, before)})
    return JSONResponse({"html": html, "earlier": start})


async def board_page(request: Request) -> Response:
    context = await run_in_threadpool(board_context, request)
    return page(request, "board.html", {"title": "Board", **context})


async def cards_json(request: Request) -> Response:
    listed = await run_in_threadpool(cards, workbench_of(request).config)
    return JSONResponse([card.model_dump(mode="json") for card in listed])
