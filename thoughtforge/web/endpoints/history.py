"""A project's history in the page: its phase ends and polish iterations, each with "Restore this
version" (`actions.restoring`, as the CLI's rollback and MCP's) and a diff view of the deliverable
before → after, and of what a restore would change, in words (`actions.history`): the deliverable
first, ThoughtForge's bookkeeping last and folded."""

from __future__ import annotations

from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from thoughtforge.actions.history import history, point_changes
from thoughtforge.actions.restoring import restore as restore_project
from thoughtforge.errors import UnknownHistoryItem
from thoughtforge.web.workbench import page, requested_project


class RestoreRequest(BaseModel):
    to: str = Field(min_length=1, max_length=200)
    keep_edits: bool = False
    """Commit the person's uncommitted edits first, as the CLI's `--keep-edits`."""


async def history_page(request: Request) -> Response:
    project = await requested_project(request)
    items = await run_in_threadpool(history, project)
    named = [item for item in reversed(items) if item.name]
    status = await run_in_threadpool(project.status)  # which project, and whether archived
    context = {
        "title": f"History of {project.id}",
        "project": project,
        "status": status,
        "items": named,
    }
    return page(request, "history.html", context)


async def diff_page(request: Request) -> Response:
    project = await requested_project(request)
    try:
        point = await run_in_threadpool(point_changes, project, request.path_params["item"])
    except UnknownHistoryItem as exc:
        raise HTTPException(404, str(exc)) from None
    context = {
        "title": f"{point.item.name or point.item.short}: {point.item.what}",
        "project": project,
        "item": point.item,
        "changed": point.changed,
        "restoring": point.restoring,
    }
    return page(request, "history_diff.html", context)


async def restore(request: Request) -> Response:
    project = await requested_project(request)
    wanted = RestoreRequest.model_validate(await request.json())
    restored = await run_in_threadpool(
        restore_project, project, wanted.to, keep_edits=wanted.keep_edits
    )
    return JSONResponse({"phase": restored.phase.value, "note": restored.note})
