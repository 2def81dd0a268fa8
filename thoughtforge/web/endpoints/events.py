"""The live stream: Server-Sent Events that send a page what changed, at most a few times a
second, and only when its cheap stamps (`actions.live_stamps`) say something did."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from thoughtforge.actions import live_stamps
from thoughtforge.actions.thread import project_thread
from thoughtforge.core.project import Project
from thoughtforge.web import live
from thoughtforge.web.endpoints.contexts import (
    board_context,
    panel_of,
    project_state,
    render_sidebar,
)
from thoughtforge.web.thread import views
from thoughtforge.web.workbench import natural_number, render, requested_project, workbench_of

TICK_SECONDS = 0.25
STATE_EVERY_SECONDS = 1.0
INBOX_EVERY_SECONDS = 2.0


async def events(request: Request) -> Response:
    """Server-Sent Events: `hello` (the token), then `message`, `reads` (where the person's
    messages were read), `state`, `panel`, `inbox` (and `board`, for the board page) whenever
    what they show changes. A project's `state` carries the sidebar too, rendered in the same
    tick from the same files, so the sidebar never tells another story than the header. A page
    that reconnects passes how many messages it has (`after`) and gets only the rest."""
    project_id = request.query_params.get("project")
    project = await requested_project(request, project_id) if project_id else None
    after = natural_number(request.query_params.get("after"), 0)
    return StreamingResponse(
        _stream(request, project, after),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


async def _stream(request: Request, project: Project | None, after: int) -> AsyncIterator[str]:
    bench = workbench_of(request)
    yield live.sse("hello", {"token": bench.token})
    seen: dict[str, Any] = {"after": after}
    last_state = last_inbox = 0.0
    loop = asyncio.get_running_loop()
    while not await request.is_disconnected():
        now = loop.time()
        if now - last_inbox >= INBOX_EVERY_SECONDS:
            last_inbox = now
            stamp = await run_in_threadpool(live_stamps.inbox_stamp, bench.config)
            if seen.get("inbox") != stamp:
                seen["inbox"] = stamp
                html = await run_in_threadpool(render_sidebar, request)
                yield live.sse("inbox", {"html": html})
                if request.query_params.get("view") == "board":
                    board = await run_in_threadpool(board_context, request)
                    yield live.sse("board", {"html": render(request, "board_columns.html", board)})
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
    chat_stamp = await run_in_threadpool(live_stamps.chat_stamp, project)
    if seen.get("chat") != chat_stamp:
        seen["chat"] = chat_stamp
        chat = await run_in_threadpool(project_thread, project)
        for view in views(chat, seen["after"]):
            html = render(request, "message.html", {"m": view})
            seen["after"] = view.index + 1
            yield live.sse("message", {"index": view.index, "html": html}, event_id=view.index + 1)
        marks = chat.read_marks()
        if marks and seen.get("reads") != marks:
            seen["reads"] = marks
            yield live.sse("reads", {str(i): f"read at {by}" for i, by in marks.items()})
    panel_stamp = await run_in_threadpool(live_stamps.panel_stamp, project)
    if seen.get("panel") != panel_stamp:
        seen["panel"] = panel_stamp
        panel = await run_in_threadpool(panel_of, workbench_of(request).config, project)
        html = render(request, "panel.html", {"panel": panel, "project": project})
        if seen.get("panel_html") != html:
            seen["panel_html"] = html
            yield live.sse("panel", {"html": html})
    state_stamp = await run_in_threadpool(live_stamps.state_stamp, project)
    if seen.get("state") != state_stamp or since_state >= STATE_EVERY_SECONDS:
        seen["state"] = state_stamp
        state = await run_in_threadpool(project_state, request, project)
        fragments = {
            "header": render(request, "project_header.html", {"project": project, **state}),
            "actions": render(request, "actions.html", state),
            "work": render(request, "work.html", state),
            "pane": render(request, "pane_head.html", {"project": project, **state}),
            "sidebar": await run_in_threadpool(render_sidebar, request),
        }
        if seen.get("fragments") != fragments:
            seen["fragments"] = fragments
            yield live.sse("state", fragments)
