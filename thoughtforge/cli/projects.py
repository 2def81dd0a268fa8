"""Commands that create, run and inspect projects: init, new, run, continue, polish, status,
pull, doctor, archive, unarchive."""

from __future__ import annotations

from typing import Annotated

import typer

from thoughtforge.cli.app import (
    AutoConfirm,
    ProjectArgument,
    ResourceOption,
    app,
    config_of,
    err,
    out,
    read_text_source,
)
from thoughtforge.cli.runs import run_pipeline, run_polish
from thoughtforge.config import Config, config_path, write_example, write_example_brain_dump
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.terminal_text import inert_markup

DEMO_AGENT = "demo"


@app.command()
def init(
    ctx: typer.Context,
    force: Annotated[bool, typer.Option(help="Overwrite an existing config file.")] = False,
    prefect_yaml: Annotated[
        bool,
        typer.Option(
            "--prefect-yaml",
            help="Also write ThoughtForge's deployments (prefect.yaml) beside the config: to "
            "edit (`up` then deploys it) or to run `prefect deploy --all` by hand.",
        ),
    ] = False,
) -> None:
    """Write a config.yaml from the documented example (and, asked, a prefect.yaml beside it),
    and the example brain dump examples/wedding-plan.md beside it when that folder has none."""
    from thoughtforge.stack.deployments import FILE_NAME, write_deployments_file

    target = config_path(ctx.obj)
    if target.exists() and not force and not prefect_yaml:
        raise ThoughtForgeError(f"{target} already exists (use --force to overwrite it)")
    if not target.exists() or force:
        write_example(target)
        out.print(f"Wrote {target}. It uses the scripted demo agent until you set agents.default.")
        example = write_example_brain_dump(target.parent)
        if example is not None:
            out.print(f"Wrote {example}, the brain dump the README's commands start from.")
    if prefect_yaml:
        written = write_deployments_file(target, force)
        out.print(f"Wrote {written}: `up` deploys it instead of the package's {FILE_NAME}.")


@app.command()
def new(
    ctx: typer.Context,
    brain_dump: Annotated[
        str, typer.Option("--brain-dump", "-b", help="File with the brain dump, or - for stdin.")
    ],
    resource: ResourceOption = None,
    agent: Annotated[
        str | None, typer.Option(help="Agent from agents.available (default: agents.default).")
    ] = None,
) -> None:
    """Create a project from a brain dump (and optional resource files)."""
    from thoughtforge.adapters.agents import warn_if_missing
    from thoughtforge.core.creation import check_distillable, create_project

    config = config_of(ctx)
    text = read_text_source(brain_dump)
    check_distillable(config, text)
    warn_if_missing(config, agent, err.print)
    project = create_project(config, brain_dump=text, resources=resource or [], agent=agent)
    out.print(f"Created project [bold]{project.id}[/] in {project.dir}")


@app.command()
def run(
    ctx: typer.Context,
    brain_dump_file: Annotated[
        str, typer.Argument(help="File with the brain dump, or - for stdin.")
    ],
    resource: ResourceOption = None,
    agent: Annotated[str | None, typer.Option(help="Agent from agents.available.")] = None,
    auto_confirm: AutoConfirm = False,
) -> None:
    """The main job: brain dump → intent → spec → built deliverable → polished deliverable."""
    from thoughtforge.core.creation import check_distillable, create_project
    from thoughtforge.phases.plugin_loader import load_plugins

    config = config_of(ctx)
    load_plugins(config)  # a broken plugin folder is refused before the project is created
    chosen = _agent_for_run(config, agent)
    text = read_text_source(brain_dump_file)
    check_distillable(config, text)
    project = create_project(config, brain_dump=text, resources=resource or [], agent=chosen)
    out.print(f"Created project [bold]{project.id}[/] in {project.dir}")
    run_pipeline(ctx, project.id, auto_confirm)


@app.command(name="continue")
def continue_(
    ctx: typer.Context, project_id: ProjectArgument, auto_confirm: AutoConfirm = False
) -> None:
    """Run a project's pipeline again from wherever its files say it stopped."""
    from thoughtforge.actions.project_page import project_named

    project_named(config_of(ctx), project_id)
    run_pipeline(ctx, project_id, auto_confirm)


@app.command()
def polish(
    ctx: typer.Context,
    project_id: ProjectArgument,
    wait: Annotated[
        bool,
        typer.Option(
            help="On a halt, keep the run paused until resume/override/terminate arrives."
        ),
    ] = False,
) -> None:
    """Run or resume Phase 4 (review → fix until the guards stop it) in this process."""
    from thoughtforge.actions.project_page import project_named

    project_named(config_of(ctx), project_id)
    run_polish(ctx, project_id, wait)


@app.command()
def status(
    ctx: typer.Context,
    project_id: Annotated[str | None, typer.Argument(help="Show one project in detail.")] = None,
) -> None:
    """List projects (id, name, phase, type, agent, updated), or show one in detail."""
    from thoughtforge.cli.status_report import project_detail, project_table

    config = config_of(ctx)
    if project_id is not None:
        out.print(project_detail(config, project_id))
        return
    table, unreadable = project_table(config)
    out.print(table)
    for problem in unreadable:
        err.print(f"[red]error:[/] {inert_markup(problem)}", highlight=False, soft_wrap=True)
    if unreadable:
        raise typer.Exit(1)


@app.command()
def doctor(
    ctx: typer.Context,
    send_test: Annotated[
        bool, typer.Option("--send-test", help="Send a real test notification to each channel.")
    ] = False,
    probe: Annotated[
        bool,
        typer.Option(
            "--probe",
            help="Call each configured agent once with a tiny prompt (latency, answer, and for "
            "HTTP agents whether structured output is accepted).",
        ),
    ] = False,
    verbose: Annotated[
        bool,
        typer.Option("--verbose", "-v", help="List each Prefect internal ThoughtForge borrows."),
    ] = False,
) -> None:
    """Check the config, the default agent, the projects directory, the Prefect API, the board
    and the notification channels; with --probe, call every agent."""
    from thoughtforge.cli.doctor import print_checks, run_checks

    checks = run_checks(config_path(ctx.obj), send_test=send_test, probe=probe, verbose=verbose)
    print_checks(out, checks)
    if any(check.outcome == "fail" for check in checks):
        raise typer.Exit(1)


def _agent_for_run(config: Config, agent: str | None) -> str:
    """The agent asked for, or the configured default; never silently another one.

    A run whose real agent is missing must not turn into canned text from the demo agent.
    """
    from thoughtforge.adapters.agents import why_unavailable
    from thoughtforge.adapters.agents.kinds import cli_names

    chosen = agent or config.agents.default
    why = why_unavailable(config, chosen)
    if why is not None:
        raise ThoughtForgeError(
            f"agent '{chosen}' cannot run: {why}. Install it and log in (or set the key), or "
            f"choose another agent with --agent (--agent {DEMO_AGENT} runs the "
            "scripted demo, which is not an AI). `thoughtforge doctor` checks the set-up."
        )
    if chosen == DEMO_AGENT:
        err.print(
            "[yellow]Using the scripted demo agent: not an AI, it quotes your brain dump into "
            "fixed templates.[/] "
            f"Set agents.default in config.yaml to {cli_names()} for real work."
        )
    return chosen


@app.command()
def pull(
    ctx: typer.Context,
    project_id: ProjectArgument,
    urls: Annotated[
        list[str], typer.Argument(help="Notion page or Google Drive document/folder links.")
    ],
) -> None:
    """Pull Notion pages and Google Drive documents into the project's resources/ as Markdown
    (a source pulled before is refreshed in place)."""
    from thoughtforge.actions.project_page import project_named
    from thoughtforge.connectors import enabled_connectors, pull_sources

    config = config_of(ctx)
    project = project_named(config, project_id)
    report = pull_sources(project, enabled_connectors(config), urls, explicit=True)
    for name in report.written:
        out.print(f"wrote resources/{inert_markup(name)}")
    for line in report.notes():
        err.print(inert_markup(line))
    if not report.written:
        raise ThoughtForgeError("nothing was pulled")


@app.command()
def archive(ctx: typer.Context, project_id: ProjectArgument) -> None:
    """Move a finished, terminated or halted project out of the way: it leaves the workbench's
    inbox (its Archived filter shows it) and the active-project count, and keeps its folder and
    history. A halted project is parked, its halt kept: unarchive it to decide (or resume,
    override, terminate it: any phase change brings a project back). A project in progress, or
    one a run is working on (named), is refused."""
    from thoughtforge.actions.archiving import archive_project
    from thoughtforge.actions.project_page import project_named

    config = config_of(ctx)
    status = archive_project(config, project_named(config, project_id))
    out.print(f"{project_id}: archived ({status.phase}); `thoughtforge unarchive {project_id}`.")


@app.command()
def unarchive(ctx: typer.Context, project_id: ProjectArgument) -> None:
    """Bring an archived project back to the inbox (a halted one counts as active again)."""
    from thoughtforge.actions.archiving import unarchive_project
    from thoughtforge.actions.project_page import project_named

    status = unarchive_project(project_named(config_of(ctx), project_id))
    out.print(f"{project_id}: back in the inbox ({status.phase}).")
