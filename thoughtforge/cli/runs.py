"""Running a project's flows in this process, and telling the user how the run ended.

SIGTERM stops a run like Ctrl-C does, gracefully (`adapters.agents.graceful_stop`): the agent
call in flight may finish and is recorded, no step starts after it, and the command exits; a second
signal abandons the step in flight (its agent's process group is killed, nothing half-written is
recorded, since every step writes the files only when it has its answer). `thoughtforge continue`
resumes from the files.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TYPE_CHECKING

import typer

from thoughtforge.cli.app import EXIT_HALTED, config_of, err, out
from thoughtforge.cli.next_steps import after_halt
from thoughtforge.cli.progress import stage
from thoughtforge.config import config_path
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.terminal_text import inert_markup

if TYPE_CHECKING:
    from thoughtforge.actions.local_run import Claim

EXIT_STOPPED = 130
LOADING = "Loading Prefect and the flows"


def run_pipeline(
    ctx: typer.Context, project_id: str, auto_confirm: bool, *, handed: Claim | None = None
) -> None:
    """Exit 0 when the project is done, `EXIT_HALTED` when it halted or waits for the human.
    `handed`: the claim this command holds on the project (a revision's), the run's own now."""
    from thoughtforge.actions.local_run import claimed_run, run_ending
    from thoughtforge.actions.project_page import project_named
    from thoughtforge.models import Phase

    # claimed until the run holds the lock, so a run the page starts (or an archive) meanwhile
    # is refused; a run that never reached the lock leaves no claim behind. Claimed before a
    # temporary server starts and Prefect's flows are imported (seconds), so nothing moves the
    # project meanwhile, and refused then while a run on its way still holds its claim.
    with (
        claimed_run(project_named(config_of(ctx), project_id), handed=handed),
        _stoppable(project_id),  # a temporary server, too, is stopped if it is still starting
    ):
        _prepare_prefect(ctx)
        _refuse_beside_a_suspended_run(ctx, project_id)
        with stage(LOADING, err, still="still loading"):
            from thoughtforge.flows.pipeline import pipeline_in_process

        pipeline_in_process(project_id, config_path(ctx.obj).resolve(), auto_confirm)
    ending = run_ending(config_of(ctx), project_named(config_of(ctx), project_id))
    if ending.deliverable is not None:
        out.print(f"[green]Done.[/] Deliverable: {ending.deliverable}")
        if ending.unchanged_revision is not None:
            out.print(
                f"Revision {ending.unchanged_revision}'s rebuild changed nothing in "
                f"{inert_markup(ending.deliverable.name)}: say the change differently "
                f"(`thoughtforge revise {project_id} ...`) or edit it yourself."
            )
        return
    if ending.phase is Phase.HALTED:
        err.print(
            f"[yellow]Halted ({ending.halt_reason}) in {ending.halted_from}.[/] "
            f"{after_halt(project_id, ending.halt_reason, ending.halted_from)}"
        )
        raise typer.Exit(EXIT_HALTED)
    err.print(f"Stopped in {ending.phase}: see `thoughtforge status {project_id}`.")
    raise typer.Exit(EXIT_HALTED)


def run_polish(ctx: typer.Context, project_id: str, wait: bool) -> None:
    """Exit 0 when the loop is done, `EXIT_HALTED` when it halted."""
    from thoughtforge.actions.local_run import claimed_run
    from thoughtforge.actions.project_page import project_named

    with (
        claimed_run(project_named(config_of(ctx), project_id)),  # as `continue`'s
        _stoppable(project_id),
    ):
        _prepare_prefect(ctx)
        with stage(LOADING, err, still="still loading"):
            from thoughtforge.flows.polish import polish_in_process

        outcome = polish_in_process(project_id, config_path(ctx.obj).resolve(), wait)
    if outcome.verdict == "done":
        out.print(f"[green]Done.[/] {inert_markup(outcome.reason)}")
        return
    status = project_named(config_of(ctx), project_id).status()
    err.print(
        f"[yellow]Halted ({outcome.halt_reason}).[/] {inert_markup(outcome.reason)}\n"
        f"{after_halt(project_id, status.halt_reason, status.halted_from)}"
    )
    raise typer.Exit(EXIT_HALTED)


def _refuse_beside_a_suspended_run(ctx: typer.Context, project_id: str) -> None:
    """A suspended run of the project holds no lock (it has no process), so it is asked for: a
    second run beside it would put two runs on one project (`local_run.suspended_run`)."""
    from thoughtforge.actions.local_run import suspended_run
    from thoughtforge.actions.project_page import project_named

    run = suspended_run(config_of(ctx), project_named(config_of(ctx), project_id))
    if run is not None:
        raise ThoughtForgeError(
            f"a run of {project_id} is suspended, waiting for you at {run.where}: answer it "
            f"(`thoughtforge {run.verbs} {project_id}` or Resume in the UI), or cancel it in "
            "the UI before starting another"
        )


def _prepare_prefect(ctx: typer.Context) -> None:
    """Point Prefect at the running server (`thoughtforge up`) before it is first imported, so
    the run is on the server the UI and the answers use; with none, at a temporary one for this
    command. Then quiet its tracebacks unless debugging."""
    from thoughtforge.actions.local_run import running_server
    from thoughtforge.config import state_dir
    from thoughtforge.stack.temporary_server import start_temporary_server

    config = config_of(ctx)
    url = running_server(config)
    if url is None:
        starting = "No Prefect server is running (`thoughtforge up`): starting one for this run"
        with stage(starting, err, still="still starting the server") as step:
            url = start_temporary_server(config, state_dir(config_path(ctx.obj)))
            step.done(f"ready at {url.removesuffix('/api')}")
    os.environ["PREFECT_API_URL"] = url
    from thoughtforge.flows.runtime.console import hide_tracebacks

    if not ctx.find_root().meta.get("debug"):
        hide_tracebacks()


@contextmanager
def _stoppable(project_id: str) -> Iterator[None]:
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    except KeyboardInterrupt:
        err.print(
            f"Stopped. Nothing half-done was recorded; `thoughtforge continue {project_id}` "
            "picks the project up where it stopped."
        )
        raise typer.Exit(EXIT_STOPPED) from None
    finally:
        signal.signal(signal.SIGTERM, previous)


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt
