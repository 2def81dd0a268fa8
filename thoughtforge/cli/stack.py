"""Commands about the machine, not one project: start and stop the local Prefect server and worker
(`up`, `down`), recover interrupted runs, run the server in the foreground."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from thoughtforge.cli.app import app, config_of, err, out
from thoughtforge.cli.deployment_run import installed_command, start_command
from thoughtforge.cli.progress import stage
from thoughtforge.config import Config, config_path, state_dir
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.plurals import plural

if TYPE_CHECKING:
    from thoughtforge.stack.deployments import FlowShape


@app.command()
def up(
    ctx: typer.Context,
    port: int | None = typer.Option(
        None,
        "--port",
        min=1,
        max=65535,
        help="The Prefect server's port, instead of server.port (also THOUGHTFORGE_SERVER_PORT). "
        "Kept for every command with this config until `down`.",
        show_default=False,
    ),
    web_port: int | None = typer.Option(
        None,
        "--web-port",
        min=1,
        max=65535,
        help="The workbench's port, instead of web.port (also THOUGHTFORGE_WEB_PORT). Kept "
        "for every command with this config until `down`.",
        show_default=False,
    ),
) -> None:
    """Start the local Prefect server (server.host/port), create the `thoughtforge` process work
    pool and the concurrency limits, deploy the flows that changed (the package's prefect.yaml,
    or the one beside the config), and start a worker and the workbench page (web.host/port).

    Every other command then uses this server. What was started is recorded beside the config, so
    `thoughtforge down` stops exactly that. Nothing starts when something `up` needs is missing
    (a command, a flow, a free port); a stage that fails stops what this `up` had started. With
    everything already up and nothing changed, `up` only checks, in well under a second.
    """
    from thoughtforge.stack import local_server
    from thoughtforge.stack.api import configured_url
    from thoughtforge.web.serve import page_address

    started_at = time.monotonic()
    config = config_of(ctx)
    config_file = config_path(ctx.obj).resolve()
    directory = state_dir(config_file)
    _choose_ports(config, port, web_port)
    url = configured_url(config)
    _warn_at_start(config)
    with local_server.exclusive(directory):
        _check_before_starting(config, config_file, directory)
        _record_ports(config_file, port, web_port)
        try:
            with local_server.stopped_on_failure(directory):
                _start_everything(ctx, config, config_file, directory)
        except ThoughtForgeError as exc:
            if port is not None or web_port is not None:
                from thoughtforge.config.ports import forget_ports

                forget_ports(config_file)
            raise ThoughtForgeError(f"{exc} (`up` stopped what it had started)") from None
    example = _example_brain_dump()
    given = config_file if ctx.obj is not None else None
    start = f"\nThen start a project from it: {start_command(example, given)}" if example else ""
    prefect = installed_command("prefect")
    for_prefect = (
        f"\nFor `{prefect}` commands in this shell: export PREFECT_API_URL={url}" if prefect else ""
    )
    out.print(
        f"Ready in {time.monotonic() - started_at:.1f} s.\n"
        f"Open the workbench: {page_address(config)} (start a project, answer it, watch it work)\n"
        f"Prefect UI: {url.removesuffix('/api')}/runs{for_prefect}{start}",
        soft_wrap=True,
    )


def _start_everything(
    ctx: typer.Context, config: Config, config_file: Path, directory: Path
) -> None:
    """`up`'s stages, in order; each one either finds its part running or starts it."""
    from thoughtforge.flows.warm_start import launcher_command
    from thoughtforge.stack import local_server
    from thoughtforge.stack.api import PrefectApi, configured_url
    from thoughtforge.stack.concurrency_limits import set_limits
    from thoughtforge.stack.deployments import deploy_changed, deployments_file
    from thoughtforge.stack.work_pool import WORK_POOL, create_work_pool
    from thoughtforge.web.serve import page_address

    url = configured_url(config)
    env = local_server.prefect_env(url, config_file)
    _halt_orphans(ctx)
    web = local_server.start_web(env, directory, config_file)
    warm_start = local_server.start_warm_starter(env, directory)
    with stage(f"Prefect server at {url}") as step:
        fresh = local_server.start_server(config, directory)
        step.done(f"Prefect server {'started' if fresh else 'already running'} at {url}")
    api = PrefectApi(url)
    with stage("Work pool and deployments") as step:
        create_work_pool(api, _job_template)
        set_limits(api, config)
        command = launcher_command(warm_start)
        deployments = deployments_file(config_file)
        deployed = deploy_changed(
            api, deployments, config_file.parent, _flow_parts, {"command": command}
        )
        step.done(f"Deployed: {', '.join(deployed)}" if deployed else "Deployments up to date")
    with stage(f"Workbench at {page_address(config)}") as step:
        local_server.wait_for_web(web, directory, page_address(config))
        step.done("Workbench answering" if web else "Workbench already running")
    with stage("Warm starter (runs start without a cold Python)") as step:
        ready = _wait_for_warm_starter(directory, warm_start)
        step.done("Warm starter taking runs" if ready else "Warm starter not ready: cold starts")
    # Last: nothing above waits for the worker, and its start-up would take the cores they use.
    with stage(f"Worker on pool '{WORK_POOL}'") as step:
        worker = local_server.start_worker(env, directory, warm_start)
        step.done(f"Worker {'started' if worker else 'already running'} on pool '{WORK_POOL}'")


def _flow_parts(entrypoint: str) -> FlowShape:
    """The flow's name and schema, importing Prefect only when a deployment is (re)built."""
    from thoughtforge.flows.deployment_parts import FlowParts

    return FlowParts(entrypoint)


def _job_template() -> dict[str, Any]:
    """The process worker's job template, importing Prefect only when the pool is made."""
    from thoughtforge.flows.deployment_parts import process_job_template

    return process_job_template()


def _choose_ports(config: Config, port: int | None, web_port: int | None) -> None:
    """`--port`/`--web-port` over what the config (with its recorded and environment ports)
    says, for this `up` and the processes it starts."""
    if port is not None:
        config.server.port = port
    if web_port is not None:
        config.web.port = web_port


def _record_ports(config_file: Path, port: int | None, web_port: int | None) -> None:
    """Keep the ports chosen by flag for every later command with this config, and every
    process `up` starts (they read the config themselves)."""
    from thoughtforge.config.ports import Ports, record_ports

    if port is not None or web_port is not None:
        record_ports(config_file, Ports(server=port, web=web_port))


def _check_before_starting(config: Config, config_file: Path, directory: Path) -> None:
    """Refuse to start anything when a later stage could not succeed, saying every reason."""
    from thoughtforge.stack import local_server
    from thoughtforge.stack.deployments import deployments_file

    missing = local_server.missing_parts(config, directory, deployments_file(config_file))
    if missing:
        raise ThoughtForgeError("`up` started nothing: " + "; ".join(missing))


def _example_brain_dump() -> Path | None:
    """The wedding-plan example: in the package when installed from a wheel, in the clone's
    examples/ otherwise."""
    from thoughtforge.config.files import EXAMPLE_BRAIN_DUMP, shipped_file

    found = shipped_file(EXAMPLE_BRAIN_DUMP)
    return found if found.exists() else None


@app.command()
def down(ctx: typer.Context) -> None:
    """Stop the server, worker and workbench `thoughtforge up` started, and nothing else."""
    from thoughtforge.config.ports import forget_ports
    from thoughtforge.stack import local_server
    from thoughtforge.stack.api import configured_url

    directory = state_dir(config_path(ctx.obj))
    with local_server.exclusive(directory):
        stopped = local_server.stop_all(configured_url(config_of(ctx)), directory)
        forget_ports(config_path(ctx.obj))
    for name in stopped.cancelled:
        out.print(f"Flow run {name}: marked cancelled (stopped by `thoughtforge down`)")
    if stopped.names:
        *first, last = stopped.names
        out.print(f"Stopped {', '.join(first) + ' and ' if first else ''}{last}.")
    elif stopped.pids:
        out.print(
            f"Stopped {plural(len(stopped.pids), 'process', 'processes')} left by an earlier `up`."
        )
    else:
        err.print("Nothing to stop: no server or worker started by `thoughtforge up` is running.")


@app.command()
def worker(
    ctx: typer.Context,
    name: str | None = typer.Option(
        None, help="How the pool lists it, and its records folder. Default: this machine's name."
    ),
    api_url: str | None = typer.Option(
        None,
        "--api-url",
        help="The server's API. Default: $PREFECT_API_URL, else server.host/server.port.",
    ),
    stop: bool = typer.Option(False, "--stop", help="Stop this worker, its starter and its runs."),
) -> None:
    """Start a worker for the `thoughtforge` pool on this machine, for a server that
    `thoughtforge up` runs on another one (see "Several machines" in the README).

    It first halts, as `up` does, the projects a dead worker left in an autonomous phase
    (server_restart, with a notification), then starts the worker and a warm starter in the
    background, recorded under the config's state folder, `workers/<name>/`, and returns once
    the pool lists it. `--stop` stops them, as `down` does.
    """
    from thoughtforge.stack import workers
    from thoughtforge.stack.api import configured_url

    config = config_of(ctx)
    config_file = config_path(ctx.obj).resolve()
    url = api_url or os.environ.get("PREFECT_API_URL") or configured_url(config)
    name = name or workers.default_name()
    records = workers.records_of(state_dir(config_file), name)
    if stop:
        stopped = workers.stop(url, records)
        for run in stopped.cancelled:
            out.print(f"Flow run {run}: marked cancelled (its worker was stopped)")
        out.print(f"Worker {name}: {'stopped' if stopped.pids else 'was not running'}.")
        return
    _halt_orphans(ctx)
    started = workers.start(url, config_file, records)
    _wait_for_warm_starter(records, started.warm_start)
    state = "started" if started.started else "already running"
    out.print(
        f"Worker {name} {state} on pool 'thoughtforge' at {url} (logs: {started.records}).",
        soft_wrap=True,
    )


@app.command()
def recover(ctx: typer.Context) -> None:
    """Halt projects left in an autonomous phase (distilling, building, polishing) by a dead run,
    and give back the concurrency slots that dead runs still hold on the server."""
    from thoughtforge.stack.api import PrefectApi, find_api
    from thoughtforge.stack.concurrency_limits import reclaim_slots

    _halt_orphans(ctx)
    url = find_api(config_of(ctx))
    if url:
        for name, slots in reclaim_slots(PrefectApi(url), config_of(ctx)).items():
            out.print(f"{name}: gave back {plural(slots, 'slot')} held by runs that are gone.")


def _warn_at_start(config: Config) -> None:
    """The spec's start-up checks, which warn and go on: the default agent may be installed
    before the first project needs it, and a server open to the network may be meant."""
    from thoughtforge.adapters.agents import warn_if_missing
    from thoughtforge.serving.guard import NON_LOOPBACK_WARNING, is_loopback

    warn_if_missing(config, None, err.print)
    if not is_loopback(config.server.host):
        err.print(f"warning: {NON_LOOPBACK_WARNING}")


def _wait_for_warm_starter(records: Path, name: str) -> bool:
    from thoughtforge.stack import local_server

    if local_server.wait_for_warm_starter(records, name):
        return True
    err.print(
        "warning: the warm starter is not taking runs, so each run starts cold (about 3 s "
        f"more); see {records / 'warm-start.log'}"
    )
    return False


def _halt_orphans(ctx: typer.Context) -> None:
    from thoughtforge.core.orphans import halt_orphaned_projects

    halted = halt_orphaned_projects(config_of(ctx))
    for project_id in halted:
        out.print(f"{project_id}: halted (server_restart). Resume it with `thoughtforge resume`.")
    if not halted:
        out.print("No interrupted projects.")


@app.command()
def server(ctx: typer.Context) -> None:
    """Recover interrupted projects, then run the Prefect server in the foreground (no worker)."""
    from thoughtforge.stack.local_server import server_command

    recover(ctx)
    _warn_at_start(config_of(ctx))
    argv, env = server_command(config_of(ctx))
    os.execve(argv[0], argv, env)
