"""`budget`: what a project spent, and the most it may spend."""

from __future__ import annotations

from typing import Annotated

import typer

from thoughtforge.cli.app import ProjectArgument, app, config_of, err, out
from thoughtforge.terminal_text import inert_markup


@app.command()
def budget(
    ctx: typer.Context,
    project_id: ProjectArgument,
    usd: Annotated[
        float | None, typer.Option("--usd", help="The most the project may spend, in US dollars.")
    ] = None,
    tokens: Annotated[
        int | None, typer.Option("--tokens", help="The most tokens (in + out) it may use.")
    ] = None,
    clear: Annotated[
        bool, typer.Option("--clear", help="Drop the project's own budget: the config's applies.")
    ] = False,
    rebuild: Annotated[
        bool,
        typer.Option(
            "--rebuild",
            help="Make usage.json again from the project log (when it is corrupt; the bad copy "
            "is kept as usage.json.corrupt).",
        ),
    ] = False,
) -> None:
    """Show a project's spend (per phase and polish iteration) and budget, or set its budget.

    Before each agent call the run checks that the call cannot take the project past its budget;
    one that could is not made, and the project halts (budget_exhausted). Raise the budget here,
    then `thoughtforge resume ID`.
    """
    from thoughtforge.actions.project_page import project_named
    from thoughtforge.core.spend.summary import change_budget, spend_of
    from thoughtforge.core.spend.summary import rebuild as rebuild_ledger

    config = config_of(ctx)
    project = project_named(config, project_id)
    warning = None
    if rebuild:
        summary = rebuild_ledger(config, project)
        out.print("usage.json rebuilt from the project log.")
    elif usd is not None or tokens is not None or clear:
        summary, warning = change_budget(config, project, usd, tokens, clear=clear)
    else:
        summary = spend_of(config, project)
    out.print(f"spent: {inert_markup(summary.line)}")
    whose = "the project's own" if summary.own_budget else "from config.yaml (budget)"
    limited = summary.budget.max_usd is not None or summary.budget.max_tokens is not None
    out.print(f"budget: {whose}" if limited else "budget: none (no limit)")
    for where, what in summary.breakdown():
        out.print(f"  {inert_markup(where)}: {inert_markup(what)}")
    if warning:
        err.print(f"[yellow]warning:[/] {inert_markup(warning)}", highlight=False, soft_wrap=True)
    if summary.error:
        raise typer.Exit(1)
