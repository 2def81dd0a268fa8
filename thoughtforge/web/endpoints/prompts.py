"""The prompt editor: the list, one prompt, saving an override, going back to the built-in."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from thoughtforge.actions import prompt_editing
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.web.workbench import page, workbench_of


async def prompts_page(request: Request) -> Response:
    names = prompt_editing.prompt_names(workbench_of(request).config)
    return page(request, "prompts.html", {"title": "Prompts", "names": names})


async def prompt_page(request: Request) -> Response:
    config = workbench_of(request).config
    prompt = prompt_editing.read_prompt(config, request.path_params["name"])
    return page(request, "prompt.html", {"title": prompt.name, "prompt": prompt})


async def save_prompt(request: Request) -> Response:
    body = await request.json()
    text = body.get("text") if isinstance(body, dict) else None
    if not isinstance(text, str):
        raise ThoughtForgeError('send the prompt as {"text": "…"}')
    name = request.path_params["name"]
    path = await run_in_threadpool(
        prompt_editing.save_prompt, workbench_of(request).config, name, text
    )
    return JSONResponse({"note": f"Saved to {path}; the next agent call uses it."})


async def reset_prompt(request: Request) -> Response:
    name = request.path_params["name"]
    await run_in_threadpool(prompt_editing.reset_prompt, workbench_of(request).config, name)
    return JSONResponse({"note": f"{name} is the built-in prompt again."})
