"""`thoughtforge run-deployment`: start a run of a deployment `up` made, over the server's REST API.

A tool install (`pipx`, `uv tool`) puts only `thoughtforge` on PATH, so every run the README or
`up` tells a person to start goes through this command rather than `prefect deployment run`.
It takes that command's `-p KEY=VALUE` (a value is JSON when it reads as JSON, else text). A
`@FILE` value is read here, from where the command runs, and sent as its text: the worker runs
elsewhere (another folder, another machine), and a file that cannot be read is refused before any
run is started.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from thoughtforge.cli.app import app, config_of, err, out
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
            help="A flow parameter as KEY=VALUE (repeat it); KEY=@FILE sends the file's text "
            "(read here, before the run starts).",
        ),
    ] = None,
) -> None:
    """Start a run of a deployment on the server `thoughtforge up` started, as `prefect
    deployment run` does (a tool install has no `prefect` command); prints its page."""
    from thoughtforge.actions.run_parameters import check_run_parameters
    from thoughtforge.stack.api import PrefectApi, PrefectApiError, find_api, project_tag

    parameters = dict(_parameter(text) for text in param or [])
    check_run_parameters(config_of(ctx), deployment, parameters)
    url = find_api(config_of(ctx), on_busy=_say_busy)
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


def _say_busy(url: str) -> None:
    from thoughtforge.stack.api import BUSY_WAIT_SECONDS

    err.print(
        f"The Prefect server at {url} is busy: waiting up to {BUSY_WAIT_SECONDS:.0f} s for it "
        "to answer…",
        soft_wrap=True,
    )


def start_command(brain_dump: Path, config_file: Path | None) -> str:
    """The line `up` prints to start a project from `brain_dump`, ready to paste whatever the
    path holds: this install's own `thoughtforge` (by its path when PATH finds another, or none),
    and the config `up` was given, when not the default one."""
    config = ["--config", str(config_file)] if config_file is not None else []
    words = ["run-deployment", "thoughtforge-pipeline/local", "-p", f"brain_dump=@{brain_dump}"]
    return shlex.join([installed_command("thoughtforge") or "thoughtforge", *config, *words])


def installed_command(name: str) -> str | None:
    """How to run this install's own `name` script from any shell: its name when PATH finds it,
    else its path (a tool install puts only `thoughtforge` on PATH); None when it has none."""
    beside = Path(sys.executable).parent / name
    if not beside.is_file():
        return None
    found = shutil.which(name)
    return name if found and Path(found).resolve() == beside.resolve() else str(beside)


def _parameter(text: str) -> tuple[str, Any]:
    key, equals, value = text.partition("=")
    if not equals or not key.strip():
        raise ThoughtForgeError(f"-p {text!r}: give a parameter as KEY=VALUE")
    if value.startswith("@"):
        return key.strip(), _file_text(key.strip(), value[1:])
    try:
        return key.strip(), json.loads(value)
    except json.JSONDecodeError:
        return key.strip(), value


def _file_text(key: str, name: str) -> str:
    """The text of `-p KEY=@NAME`, or one line saying why it cannot be sent."""
    from thoughtforge.bounded_input import MAX_TEXT_FILE_BYTES, read_capped_text

    path = Path(name).expanduser()
    if not path.is_file():
        raise ThoughtForgeError(
            f"-p {key}=@{name}: no such file in {Path.cwd()} (the file is read here, before "
            "the run starts); give its path from this folder"
        )
    text = read_capped_text(path, MAX_TEXT_FILE_BYTES, f"-p {key}=@")
    # The worker reads a one-line value that starts with "@" as a file's name: keep this text text.
    return text + "\n" if text.startswith("@") and "\n" not in text else text
