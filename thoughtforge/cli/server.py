"""Commands about the machine, not one project: start and stop the local Prefect server and worker
(`up`, `down`), recover interrupted runs, run the server in the foreground."""

from __future__ import annotations

import os
import time

import typer

from thoughtforge.cli.app import app, config_of, err, out
from thoughtforge.config import config_path, state_dir


@app.command()
def up(ctx: typer.Context) -> None:
    """Start the local Prefect server (server.host/port), create the `thoughtforge` process work
    pool and the concurrency limits, deploy the flows in prefect.yaml, and start a worker and the
    workbench page (web.host/port).

    Every other command then uses this server. What was started is recorded beside the config, so
    `thoughtforge down` stops exactly that.
    """
    from thoughtforge.server import local_server
    from thoughtforge.server.api import configured_url
    from thoughtforge.web.server import page_address

    started_at = time.monotonic()
    config = config_of(ctx)
    config_file = config_path(ctx.obj).resolve()
    directory = state_dir(config_file)
    url = configured_url(config)
    with local_server.exclusive(directory):
        recover(ctx)
        fresh = local_server.start_server(config, directory)
        out.print(f"Prefect server {'started' if fresh else 'already running'} at {url}")
        env = local_server.prefect_env(url, config_file)
        os.environ["PREFECT_API_URL"] = url  # before Prefect is first imported, below
        from thoughtforge.flows.limits import create_limits
        from thoughtforge.flows.work_pool import create_work_pool

        create_work_pool(local_server.WORK_POOL)
        create_limits(config)
        local_server.deploy(env, directory)
        worker = local_server.start_worker(env, directory)
        out.print(f"Worker {'started' if worker else 'already running'} on pool 'thoughtforge'")
        local_server.start_web(env, directory, config_file, page_address(config))
    example = local_server.PREFECT_YAML.parent / "examples" / "wedding-plan.md"
    out.print(
        f"Ready in {time.monotonic() - started_at:.1f} s.\n"
        f"Open the workbench: {page_address(config)} (start a project, answer it, watch it work)\n"
        f"Prefect UI: {url.removesuffix('/api')}/runs\n"
        f"Or start a project from a shell: PREFECT_API_URL={url} prefect deployment run "
        f"'thoughtforge-pipeline/local' -p brain_dump=@{example}",
        soft_wrap=True,
    )


@app.command()
def down(ctx: typer.Context) -> None:
    """Stop the server, worker and workbench `thoughtforge up` started, and nothing else."""
    from thoughtforge.server import local_server

    directory = state_dir(config_path(ctx.obj))
    with local_server.exclusive(directory):
        for name in local_server.cancel_runs_in_flight(config_of(ctx), directory):
            out.print(f"Flow run {name}: marked cancelled (stopped by `thoughtforge down`)")
        stopped = local_server.stop_all(directory)
    if stopped:
        out.print(f"Stopped {len(stopped)} process group(s): {', '.join(map(str, stopped))}")
    else:
        err.print("Nothing to stop: no server or worker started by `thoughtforge up` is running.")


@app.command()
def recover(ctx: typer.Context) -> None:
    """Halt projects left in an autonomous phase (distilling, building, polishing) by a dead run,
    and give back the concurrency slots that dead runs still hold on the server."""
    from thoughtforge.core import halt_orphaned_projects
    from thoughtforge.server.api import find_api

    config = config_of(ctx)
    halted = halt_orphaned_projects(config)
    for project_id in halted:
        out.print(f"{project_id}: halted (server_restart). Resume it with `thoughtforge resume`.")
    if not halted:
        out.print("No interrupted projects.")
    url = find_api(config)
    if url:
        os.environ["PREFECT_API_URL"] = url  # before Prefect is first imported, below
        from thoughtforge.flows.limits import reclaim_slots

        for name, slots in reclaim_slots(config).items():
            out.print(f"{name}: gave back {slots} slot(s) held by runs that are gone.")


@app.command()
def server(ctx: typer.Context) -> None:
    """Recover interrupted projects, then run the Prefect server in the foreground (no worker)."""
    from thoughtforge.server.local_server import prefect_executable, server_command

    recover(ctx)
    args, env = server_command(config_of(ctx))
    prefect = prefect_executable()
    os.execve(prefect, [prefect, *args], env)
