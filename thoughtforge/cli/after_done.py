"""Life after done: `revise` (a change request), `history` and `rollback`. Each calls what the
page and MCP call (`actions.revising`, `actions.history`, `actions.restoring`)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from thoughtforge.cli.app import AutoConfirm, ProjectArgument, app, config_of, out, read_text_source
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.terminal_text import inert_markup, inert_text

KeepEdits = Annotated[
    bool,
    typer.Option(
        "--keep-edits",
        help="Commit your uncommitted edits of the project's files first (as your own commit, "
        "listed in `history`); without it they refuse the command instead of being overwritten.",
    ),
]


@app.command()
def revise(
    ctx: typer.Context,
    project_id: ProjectArgument,
    change: Annotated[
        str | None, typer.Argument(help="What should change, in your words.", show_default=False)
    ] = None,
    file: Annotated[
        str | None,
        typer.Option("--file", "-f", help="Read the change request from a file (- for stdin)."),
    ] = None,
    auto_confirm: AutoConfirm = False,
    keep_edits: KeepEdits = False,
) -> None:
    """Ask for a change to a done (or halted) project: it goes back to Phase 2 with its current
    spec and your change; the agent proposes the revised spec, you correct and confirm as before,
    then only what the change touches is rebuilt and polished again (revision 2, 3, …). Runs the
    pipeline here; answer with say/confirm, in the page or the Prefect UI."""
    from thoughtforge.actions.project_page import project_named
    from thoughtforge.actions.revising import revised
    from thoughtforge.cli.runs import run_pipeline

    if (change is None) == (file is None):
        raise ThoughtForgeError("give the change request as text or with --file (one of them)")
    text = change if change is not None else read_text_source(file or "-", "change")
    config = config_of(ctx)
    project = project_named(config, project_id)
    with revised(config, project, text, keep_edits=keep_edits) as (revision, claim):
        out.print(
            f"Revision {revision.number} of [bold]{project_id}[/] started: back to Phase 2 with "
            "your change request."
        )
        run_pipeline(ctx, project_id, auto_confirm, handed=claim)  # no Start slips in between


@app.command()
def history(
    ctx: typer.Context,
    project_id: ProjectArgument,
    diff: Annotated[
        str | None,
        typer.Option(
            "--diff",
            help=(
                "Show what ITEM changed, in words: the deliverable first, removed words as "
                "[-…-] and added ones as {+…+}, bookkeeping files only named."
            ),
            metavar="ITEM",
            show_default=False,
        ),
    ] = None,
    named_only: Annotated[
        bool, typer.Option("--named", help="Only phase ends and polish iterations.")
    ] = False,
) -> None:
    """A project's history: phase ends, polish iterations and every commit, oldest first, with
    what each was. A name (or a commit id) is what `rollback --to` takes."""
    from thoughtforge.actions.history import history, point_changes
    from thoughtforge.actions.project_page import project_named

    project = project_named(config_of(ctx), project_id)
    if diff is not None:
        text = point_changes(project, diff).changed_text
        if not text:
            out.print(f"{inert_markup(diff)} changed no file.", highlight=False)
            return
        shown = inert_text(text)
        shown.highlight_regex(r"\[-.*?-\]", "red")
        shown.highlight_regex(r"\{\+.*?\+\}", "green")
        out.print(shown, highlight=False, soft_wrap=True)
        return
    table = Table("name", "commit", "rev", "when (UTC)", "what")
    for item in history(project):
        if named_only and item.name is None:
            continue
        table.add_row(
            item.name or "",
            item.short,
            str(item.revision),
            item.when.strftime("%Y-%m-%d %H:%M"),
            inert_markup(item.what),
        )
    out.print(table)


@app.command()
def rollback(
    ctx: typer.Context,
    project_id: ProjectArgument,
    to: Annotated[
        str,
        typer.Option(
            "--to", help="A name from `thoughtforge history` (phase3, polish-2, …) or a commit id."
        ),
    ],
    keep_edits: KeepEdits = False,
) -> None:
    """Put the project's files back as they were at a phase end, a polish iteration or a commit,
    with a new commit (history is kept), and set its phase and polish state to match. Refused
    while a run works on the project."""
    from thoughtforge.actions.project_page import project_named
    from thoughtforge.actions.restoring import restore
    from thoughtforge.cli.next_steps import start_command

    restored = restore(project_named(config_of(ctx), project_id), to, keep_edits=keep_edits)
    out.print(
        f"{project_id}: {restored.note} {start_command(project_id, restored.phase)}".rstrip(),
        soft_wrap=True,
    )
