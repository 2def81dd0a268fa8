"""What the person does to a project from the page: start one, answer its run, edit its draft,
set its budget, archive it, drop a file in. Each endpoint reads the request and calls one
function of `actions`, the one the CLI and the MCP server call for the same thing."""

from __future__ import annotations

from urllib.parse import unquote

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from thoughtforge.actions.answering import Answer, take_answer
from thoughtforge.actions.archiving import (
    ARCHIVED_NOTE,
    UNARCHIVED_NOTE,
    archive_project,
    unarchive_project,
)
from thoughtforge.actions.budget import BudgetChange, set_budget
from thoughtforge.actions.draft import DraftEdit, draft_to_edit, take_edit
from thoughtforge.actions.starting import NewProject, create_from_request, start_run
from thoughtforge.actions.uploading import PartialUpload, UploadRefused, too_large
from thoughtforge.errors import DraftRefused, ThoughtForgeError
from thoughtforge.web.workbench import natural_number, requested_project, workbench_of

MAX_UPLOAD_READ = 512 * 1024 * 1024
"""Past this a body is not read at all, whatever `resources.max_file_bytes` says."""


async def create_project(request: Request) -> Response:
    bench = workbench_of(request)
    wanted = NewProject.model_validate(await request.json())
    project = await run_in_threadpool(create_from_request, bench.config, wanted)
    started = await run_in_threadpool(start_run, bench.config, bench.config_file, project)
    return JSONResponse(
        {"project_id": project.id, "url": f"/projects/{project.id}", "note": started.note}
    )


async def answer(request: Request) -> Response:
    bench = workbench_of(request)
    project = await requested_project(request)
    given = Answer.model_validate(await request.json())
    outcome = await run_in_threadpool(take_answer, bench.config, bench.config_file, project, given)
    said = outcome.model_dump()
    if outcome.view is not None:  # the step the note is about: the page keeps it once there
        said["phase"] = outcome.view.status.phase
    return JSONResponse(said)


async def draft(request: Request) -> Response:
    """The draft Confirm would lock now, to edit in the page's box."""
    project = await requested_project(request)
    try:
        found = await run_in_threadpool(draft_to_edit, project)
    except DraftRefused as exc:  # asked by the page's script: an answer it reads, not a page
        return JSONResponse({"error": str(exc)}, status_code=409)
    return JSONResponse(found.model_dump(mode="json"))


async def edit_draft(request: Request) -> Response:
    bench = workbench_of(request)
    project = await requested_project(request)
    edit = DraftEdit.model_validate(await request.json())
    outcome = await run_in_threadpool(take_edit, bench.config, bench.config_file, project, edit)
    return JSONResponse(outcome.model_dump())


async def archive(request: Request) -> Response:
    config = workbench_of(request).config
    project = await requested_project(request)
    await run_in_threadpool(archive_project, config, project)
    return JSONResponse({"note": ARCHIVED_NOTE})


async def unarchive(request: Request) -> Response:
    project = await requested_project(request)
    await run_in_threadpool(unarchive_project, project)
    return JSONResponse({"note": UNARCHIVED_NOTE})


async def budget(request: Request) -> Response:
    config = workbench_of(request).config
    project = await requested_project(request)
    change = BudgetChange.model_validate(await request.json())
    note = await run_in_threadpool(set_budget, config, project, change)
    return JSONResponse({"note": note})


async def drop_file(request: Request) -> Response:
    """The body goes to disk as it comes (a hidden part, named when whole), refused past
    `resources.max_file_bytes` without reading the rest."""
    config = workbench_of(request).config
    project = await requested_project(request)
    name = unquote(request.headers.get("x-file-name", ""))
    if not name.strip():
        raise ThoughtForgeError("the file has no name (X-File-Name)")
    limit = min(config.resources.max_file_bytes, MAX_UPLOAD_READ)
    declared = natural_number(request.headers.get("content-length"), 0)
    if declared > limit:
        raise UploadRefused(too_large(declared, config.resources.max_file_bytes))
    upload = await run_in_threadpool(PartialUpload, config, project, limit=limit)
    try:
        async for chunk in request.stream():
            await run_in_threadpool(upload.write, chunk)
        saved = await run_in_threadpool(upload.finish, name)
    except BaseException:
        upload.abort()
        raise
    return JSONResponse({"saved": saved, "note": f"Added resources/{saved}."})
