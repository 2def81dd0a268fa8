"""The `thoughtforge` command line.

Start-up stays light: Prefect is imported only inside the commands that run flows, so `--help`,
`status` and `new` answer quickly. User errors print one line, never a traceback.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from thoughtforge.config import Config, config_path, load_config, write_example
from thoughtforge.errors import ThoughtForgeError

app = typer.Typer(
    help=(
        "ThoughtForge turns a brain dump into a polished plan or working code: distil it with you, "
        "agree a spec, build it, then polish it in a review → fix loop that stops when convergence "
        "guards say so."
    ),
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
EXIT_HALTED = 3
out = Console()
err = Console(stderr=True)

ConfigOption = Annotated[
    Path | None,
    typer.Option(
        "--config",
        "-c",
        help="Config file (default: $THOUGHTFORGE_CONFIG, then ./config.yaml).",
        show_default=False,
    ),
]


@app.callback()
def _root(ctx: typer.Context, config: ConfigOption = None) -> None:
    ctx.obj = config


def _config(ctx: typer.Context) -> Config:
    """Loaded once per command, however many helpers ask for it."""
    if "config" not in ctx.meta:
        ctx.meta["config"] = load_config(
            ctx.obj, announce=lambda msg: err.print(f"[yellow]{msg}[/]")
        )
    return ctx.meta["config"]


@app.command()
def init(
    ctx: typer.Context,
    force: Annotated[bool, typer.Option(help="Overwrite an existing config file.")] = False,
) -> None:
    """Write a config.yaml from the documented example."""
    target = config_path(ctx.obj)
    if target.exists() and not force:
        raise ThoughtForgeError(f"{target} already exists (use --force to overwrite it)")
    write_example(target)
    out.print(f"Wrote {target}. It uses the scripted demo agent until you set agents.default.")


@app.command()
def new(
    ctx: typer.Context,
    brain_dump: Annotated[
        str, typer.Option("--brain-dump", "-b", help="File with the brain dump, or - for stdin.")
    ],
    resource: Annotated[
        list[Path] | None,
        typer.Option("--resource", "-r", help="A file to add to the project's resources/."),
    ] = None,
    agent: Annotated[
        str | None, typer.Option(help="Agent from agents.available (default: agents.default).")
    ] = None,
) -> None:
    """Create a project from a brain dump (and optional resource files)."""
    from thoughtforge.agent_check import warn_if_missing
    from thoughtforge.project import create_project

    config = _config(ctx)
    text = _read_brain_dump(brain_dump)
    warn_if_missing(config, agent, err.print)
    project = create_project(config, brain_dump=text, resources=resource or [], agent=agent)
    out.print(f"Created project [bold]{project.id}[/] in {project.dir}")


@app.command()
def status(
    ctx: typer.Context,
    project_id: Annotated[str | None, typer.Argument(help="Show one project in detail.")] = None,
) -> None:
    """List projects (id, name, phase, type, agent, updated), or show one in detail."""
    from thoughtforge.status_report import project_detail, project_table

    config = _config(ctx)
    if project_id is not None:
        out.print(project_detail(config, project_id))
        return
    table, unreadable = project_table(config)
    out.print(table)
    for problem in unreadable:
        err.print(f"[red]error:[/] {escape(problem)}", highlight=False, soft_wrap=True)
    if unreadable:
        raise typer.Exit(1)


@app.command()
def doctor(ctx: typer.Context) -> None:
    """Check the config, the default agent, the projects directory and the Prefect API."""
    from thoughtforge.doctor import run_checks

    checks = run_checks(config_path(ctx.obj))
    table = Table("check", "result", "detail", box=None)
    for check in checks:
        mark = {"ok": "[green]ok[/]", "warn": "[yellow]warn[/]", "fail": "[red]FAIL[/]"}
        table.add_row(check.name, mark[check.outcome], check.detail)
    out.print(table)
    if any(check.outcome == "fail" for check in checks):
        raise typer.Exit(1)


ProjectArgument = Annotated[str, typer.Argument(help="The project id (see `thoughtforge status`).")]
AutoConfirm = Annotated[
    bool,
    typer.Option(help="Never wait for a human: distil at once, confirm the first proposals."),
]
DEMO_AGENT = "demo"


@app.command()
def run(
    ctx: typer.Context,
    brain_dump_file: Annotated[
        Path, typer.Argument(help="File with the brain dump, or - for stdin.")
    ],
    resource: Annotated[
        list[Path] | None,
        typer.Option("--resource", "-r", help="A file to add to the project's resources/."),
    ] = None,
    agent: Annotated[str | None, typer.Option(help="Agent from agents.available.")] = None,
    auto_confirm: AutoConfirm = False,
) -> None:
    """The main job: brain dump → intent → spec → built deliverable → polished deliverable."""
    from thoughtforge.project import create_project

    config = _config(ctx)
    chosen = _agent_for_run(config, agent)
    text = _read_brain_dump(str(brain_dump_file))
    project = create_project(config, brain_dump=text, resources=resource or [], agent=chosen)
    out.print(f"Created project [bold]{project.id}[/] in {project.dir}")
    _run_pipeline(ctx, project.id, auto_confirm)


@app.command(name="continue")
def continue_(
    ctx: typer.Context, project_id: ProjectArgument, auto_confirm: AutoConfirm = False
) -> None:
    """Run a project's pipeline again from wherever its files say it stopped."""
    from thoughtforge.project import open_project

    open_project(_config(ctx), project_id)
    _run_pipeline(ctx, project_id, auto_confirm)


@app.command()
def say(
    ctx: typer.Context,
    project_id: ProjectArgument,
    message: Annotated[
        str, typer.Argument(help="Your message (a correction, an answer, more input).")
    ],
) -> None:
    """Send a chat message; queued for the AI's next call when no run is waiting."""
    _chat(ctx, project_id, "send", message)


@app.command()
def distill(ctx: typer.Context, project_id: ProjectArgument) -> None:
    """Phase 1: all inputs are in, distil them."""
    _chat(ctx, project_id, "distill")


@app.command()
def realign(ctx: typer.Context, project_id: ProjectArgument) -> None:
    """Phase 1: drop the messages after your last real correction and distil again."""
    _chat(ctx, project_id, "realign")


@app.command()
def confirm(ctx: typer.Context, project_id: ProjectArgument) -> None:
    """Confirm the distilled intent (Phase 1) or the spec proposal (Phase 2)."""
    _chat(ctx, project_id, "confirm")


@app.command()
def answer(
    ctx: typer.Context,
    project_id: ProjectArgument,
    message: Annotated[str, typer.Argument(help="The decision the stuck builder asked for.")],
) -> None:
    """Phase 3: give a stuck builder the input it asked for; it re-asks the stuck section."""
    from thoughtforge.flows.paused_runs import send_input
    from thoughtforge.intake import add_human_message
    from thoughtforge.models import Phase
    from thoughtforge.plugins.plan.builder import INPUT_HALTS
    from thoughtforge.project import open_project
    from thoughtforge.transition import transition

    if not message.strip():
        raise ThoughtForgeError("the answer is empty: say what the builder should do")
    project = open_project(_config(ctx), project_id)
    if send_input(project_id, {"action": "provide_input", "message": message}) is not None:
        out.print(f"Sent your answer to the waiting build of {project_id}.")
        return
    status = project.status()
    if status.halt_reason not in INPUT_HALTS:
        raise ThoughtForgeError(
            f"project {project_id} is not waiting for an answer ({status.phase})"
        )
    add_human_message(project, message)
    transition(project, Phase.BUILDING)
    _run_pipeline(ctx, project_id, auto_confirm=True)


@app.command()
def recover(ctx: typer.Context) -> None:
    """Halt projects left in an autonomous phase (distilling, building, polishing) by a dead run."""
    from thoughtforge.restart import halt_orphaned_projects

    halted = halt_orphaned_projects(_config(ctx))
    for project_id in halted:
        out.print(f"{project_id}: halted (server_restart). Resume it with `thoughtforge resume`.")
    if not halted:
        out.print("No interrupted projects.")


@app.command()
def server(ctx: typer.Context) -> None:
    """Recover interrupted projects, then start the Prefect server (UI and API) from config."""
    import os

    recover(ctx)
    config = _config(ctx)
    prefect = str(Path(sys.executable).with_name("prefect"))
    args = ["server", "start", "--host", config.server.host, "--port", str(config.server.port)]
    os.execv(prefect, [prefect, *args])


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
    config = _config(ctx)
    from thoughtforge.project import open_project

    open_project(config, project_id)
    _run_polish(ctx, project_id, wait)


@app.command()
def resume(ctx: typer.Context, project_id: ProjectArgument) -> None:
    """Continue a halted project; a halted polish loop goes on with the next iteration."""
    _decide(ctx, project_id, "resume")


@app.command()
def override(ctx: typer.Context, project_id: ProjectArgument) -> None:
    """Accept the deliverable of a halted polish loop as it is: the project is done."""
    _decide(ctx, project_id, "override")


@app.command()
def terminate(ctx: typer.Context, project_id: ProjectArgument) -> None:
    """Stop a halted project for good."""
    _decide(ctx, project_id, "terminate")


def _chat(ctx: typer.Context, project_id: str, action: str, message: str = "") -> None:
    from thoughtforge.flows.paused_runs import send_input
    from thoughtforge.intake import add_human_message
    from thoughtforge.project import open_project

    project = open_project(_config(ctx), project_id)
    if send_input(project_id, {"message": message, "action": action}) is not None:
        out.print(f"Sent {action!r} to the waiting run of {project_id}.")
        return
    if action == "send":
        add_human_message(project, message)
        out.print("No run is waiting: message queued for the AI's next call.")
        return
    raise ThoughtForgeError(
        f"no run of {project_id} is waiting for input; start one with "
        f"`thoughtforge continue {project_id}`"
    )


def _agent_for_run(config: Config, agent: str | None) -> str:
    """Without a working real agent the demo agent runs, and the user is told so."""
    from thoughtforge.agent_check import missing_agent_warning

    chosen = agent or config.agents.default
    warning = missing_agent_warning(config, chosen)
    if warning and agent is None and DEMO_AGENT in config.agents.available:
        err.print(f"[yellow]{escape(warning)}[/] Falling back to the scripted demo agent.")
        chosen = DEMO_AGENT
    if chosen == DEMO_AGENT:
        err.print(
            "[yellow]Using the scripted demo agent: not an AI, its answers are canned.[/] "
            "Set agents.default in config.yaml to claude, codex or gemini for real work."
        )
    return chosen


def _run_pipeline(ctx: typer.Context, project_id: str, auto_confirm: bool) -> None:
    from thoughtforge.flows.pipeline import pipeline_in_process
    from thoughtforge.project import open_project
    from thoughtforge.state import read_status

    pipeline_in_process(project_id, config_path(ctx.obj).resolve(), auto_confirm)
    project = open_project(_config(ctx), project_id)
    status = read_status(project.dir)
    if status.phase == "done":
        out.print(f"[green]Done.[/] Deliverable: {project.docs_dir / 'plan.md'}")
        return
    if status.phase == "halted":
        err.print(
            f"[yellow]Halted ({status.halt_reason}) in {status.halted_from}.[/] "
            f"Next: thoughtforge resume|override|terminate {project_id}"
        )
        raise typer.Exit(EXIT_HALTED)
    err.print(f"Stopped in {status.phase}: see `thoughtforge status {project_id}`.")
    raise typer.Exit(EXIT_HALTED)


def _decide(ctx: typer.Context, project_id: str, action: str) -> None:
    from thoughtforge import recovery
    from thoughtforge.flows.paused_runs import send_input
    from thoughtforge.models import AUTONOMOUS_PHASES
    from thoughtforge.project import open_project

    config = _config(ctx)
    project = open_project(config, project_id)
    if send_input(project_id, {"action": action}) is not None:
        out.print(f"Sent '{action}' to the paused run of {project_id}.")
        return
    status = recovery.apply(project, action)  # type: ignore[arg-type]
    out.print(f"{project_id}: {action} → {status.phase}")
    if action != "resume":
        return
    if status.phase in AUTONOMOUS_PHASES:
        _run_pipeline(ctx, project_id, auto_confirm=True)
    else:
        out.print(f"It waits for you: `thoughtforge continue {project_id}`, then say/confirm.")


def _run_polish(ctx: typer.Context, project_id: str, wait: bool) -> None:
    from thoughtforge.flows.polish import polish_in_process

    outcome = polish_in_process(project_id, config_path(ctx.obj).resolve(), wait_for_human=wait)
    if outcome.verdict == "done":
        out.print(f"[green]Done.[/] {escape(outcome.reason)}")
        return
    err.print(
        f"[yellow]Halted ({outcome.halt_reason}).[/] {escape(outcome.reason)}\n"
        f"Next: thoughtforge resume|override|terminate {project_id}"
    )
    raise typer.Exit(EXIT_HALTED)


def _read_brain_dump(source: str) -> str:
    if source == "-":
        return sys.stdin.read()
    try:
        return Path(source).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ThoughtForgeError(f"cannot read brain dump {source}: {exc}") from None


def main() -> None:
    try:
        app()
    except ThoughtForgeError as exc:
        err.print(f"[red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
        sys.exit(1)
