"""`thoughtforge run-deployment`: start a run of a deployment `up` made, over the server's REST API.

A tool install (`pipx`, `uv tool`) puts only `thoughtforge` on PATH, so every run the README or
`up` tells a person to start goes through this command rather than `prefect deployment run`.
It takes that command's `-p KEY=VALUE` (a value is JSON when it reads as JSON, else text), and a
`@FILE` value names its file by its absolute path: the run starts in the config's folder, not
the shell's.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from thoughtforge.cli.app import app, config_of, out
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.terminal_text import inert_markup


@app.command(name="run-deployment")
def run_deployment(
    ctx: typer.Context,
    deployment: Annotated[
        str,
        typer.Argument(
            help="FLOW/DEPLOYMENT, e.g. thoughtforge-pipeline/local, thoughtforge-polish/local, "
            "thoughtforge-repolish/nightly."
        ),
    ],
    param: Annotated[
        list[str] | None,
        typer.Option(
            "--param",
            "-p",
            help="A flow parameter as KEY=VALUE (repeat it); brain_dump=@FILE reads the file.",
        ),
    ] = None,
) -> None:
    """Start a run of a deployment on the server `thoughtforge up` started, as `prefect
    deployment run` does (a tool install has no `prefect` command); prints its page."""
    from thoughtforge.actions.run_parameters import check_run_parameters
    from thoughtforge.stack.api import PrefectApi, PrefectApiError, find_api, project_tag

    parameters = dict(_parameter(text) for text in param or [])
    check_run_parameters(config_of(ctx), deployment, parameters)
    url = find_api(config_of(ctx))
    if url is None:
        raise ThoughtForgeError(
            "no Prefect server answers: start one with `thoughtforge up`, then run this again"
        )
    project_id = parameters.get("project_id")
    tags = [project_tag(project_id)] if isinstance(project_id, str) and project_id else None
    try:
        run = PrefectApi(url).run_deployment(deployment, parameters, tags=tags)
    except PrefectApiError as exc:
        if exc.status == 404:
            raise ThoughtForgeError(
                f"no deployment '{deployment}' on {url}: `thoughtforge up` deploys "
                "thoughtforge-pipeline/local, thoughtforge-polish/local and "
                "thoughtforge-repolish/nightly"
            ) from None
        raise
    page = f"{url.removesuffix('/api')}/runs/flow-run/{run.id}"
    out.print(
        f"Started {inert_markup(run.name)} of {inert_markup(deployment)}: {page}",
        soft_wrap=True,
        highlight=False,
    )


def start_command(brain_dump: Path, config_file: Path | None) -> str:
    """The line `up` prints to start a project from `brain_dump`, ready to paste whatever the
    path holds: this install's own `thoughtforge` (by its path when PATH finds another, or none),
    and the config `up` was given, when not the default one."""
    config = ["--config", str(config_file)] if config_file is not None else []
    words = ["run-deployment", "thoughtforge-pipeline/local", "-p", f"brain_dump=@{brain_dump}"]
    return shlex.join([_own_command(), *config, *words])


def _own_command() -> str:
    beside = Path(sys.executable).parent / "thoughtforge"
    if not beside.is_file():
        return "thoughtforge"
    found = shutil.which("thoughtforge")
    return "thoughtforge" if found and Path(found).resolve() == beside.resolve() else str(beside)


def _parameter(text: str) -> tuple[str, Any]:
    key, equals, value = text.partition("=")
    if not equals or not key.strip():
        raise ThoughtForgeError(f"-p {text!r}: give a parameter as KEY=VALUE")
    if value.startswith("@") and Path(value[1:]).expanduser().is_file():
        return key.strip(), f"@{Path(value[1:]).expanduser().resolve()}"
    try:
        return key.strip(), json.loads(value)
    except json.JSONDecodeError:
        return key.strip(), value
