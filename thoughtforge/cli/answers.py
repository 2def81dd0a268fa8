"""The person's answers: chat in Phases 1–2, answer a stuck build, decide on a halted project.

Each is checked as the page checks it (`actions.answering.check_answer` on the project's
composer), so a refusal says the page's words, then the commands that do what the page offers.
Then it is one call into `actions` (`answer_in_chat`, `decide`), the path the page and the MCP
server take: the words stored first, then handed to the run waiting for them; with no run
waiting, a decision is applied to the project's files and, where the project can go on by itself,
it runs here, in this process.
"""

from __future__ import annotations

from collections.abc import Callable
from inspect import Parameter, Signature
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from thoughtforge.bounded_input import MAX_TEXT_FILE_BYTES, read_capped_text
from thoughtforge.catalogue import ACTIONS, CHAT_ACTIONS, Decision, PersonAction, is_decision
from thoughtforge.cli.app import (
    AutoConfirm,
    ProjectArgument,
    app,
    config_of,
    err,
    out,
    read_text_source,
)
from thoughtforge.cli.chat import WaitOption, print_reply
from thoughtforge.cli.runs import run_pipeline
from thoughtforge.door_entries import CliCommand
from thoughtforge.errors import ThoughtForgeError

if TYPE_CHECKING:
    from thoughtforge.actions.answering import Decided
    from thoughtforge.actions.project_page import Project

BUSY_WAIT_SECONDS = 300.0
"""How long an action waits for a busy run to ask again (a distillation can take minutes)."""

EditOption = Annotated[
    bool,
    typer.Option(
        "--edit",
        help="First edit the draft (the distillation, or the spec proposal) in $VISUAL or "
        "$EDITOR; your edit is checked as the AI's draft is.",
    ),
]
FromOption = Annotated[
    Path | None,
    typer.Option(
        "--from",
        help="First replace the draft with this file's text (checked as the AI's draft is).",
        show_default=False,
    ),
]


@app.command()
def confirm(
    ctx: typer.Context,
    project_id: ProjectArgument,
    accept_unresolved: Annotated[
        bool,
        typer.Option(
            "--accept-unresolved",
            help="Phase 2: lock the spec with its open items written in as unresolved.",
        ),
    ] = False,
    edit: EditOption = False,
    from_file: FromOption = None,
    wait: WaitOption = False,
) -> None:
    """Confirm the distilled intent (Phase 1) or the spec proposal (Phase 2); with --edit or
    --from, confirm your edit of it. An edit that fails the draft's checks (empty, a section
    lost, in Phase 2 an open item left) is refused and kept in the project's rejected/ folder."""
    action = "accept_unresolved" if accept_unresolved else "confirm"
    if (edit or from_file) and not _edit_draft(ctx, project_id, from_file, confirming=action):
        return
    _chat(ctx, project_id, action, wait=wait)


@app.command(name="edit")
def edit_draft(
    ctx: typer.Context,
    project_id: ProjectArgument,
    from_file: FromOption = None,
) -> None:
    """Edit the draft waiting for your Confirm (the distillation, or the spec proposal) in
    $VISUAL or $EDITOR, or replace it with --from FILE, and save it without confirming: it is
    the draft Confirm locks, and the AI's next turn reads it. `confirm --edit` saves and
    confirms."""
    _edit_draft(ctx, project_id, from_file, confirming=None)


@app.command()
def agent(
    ctx: typer.Context,
    project_id: ProjectArgument,
    name: Annotated[str, typer.Argument(help="An agent from agents.available.")],
) -> None:
    """Switch a project to another agent (say, after an answer_unusable halt), then resume it."""
    from thoughtforge.actions.agent_switch import switch_agent
    from thoughtforge.actions.project_page import project_named

    config = config_of(ctx)
    status = switch_agent(config, project_named(config, project_id), name)
    out.print(f"{project_id}: agent is now '{status.agent}' ({status.phase}).")


@app.command()
def answer(
    ctx: typer.Context,
    project_id: ProjectArgument,
    message: Annotated[
        str,
        typer.Argument(
            help="The decision the stuck builder asked for; - reads it from standard input."
        ),
    ],
) -> None:
    """Phase 3: give a stuck builder the input it asked for; it re-asks the stuck section."""
    if _decided(ctx, project_id, "provide_input", _said(message)).handed_over:
        out.print(f"Sent your answer to the waiting build of {project_id}.")
        return
    run_pipeline(ctx, project_id, auto_confirm=True)


def command_of(action: PersonAction, made: CliCommand) -> Callable[..., None]:
    """The command made from `action`'s row: `VERB PROJECT_ID [MESSAGE] [--wait|--auto-confirm]`,
    carried out the CLI's way for its kind: a chat turn handed over (`--wait`: then the AI's
    reply), a decision handed over or applied here (`--auto-confirm`: then the pipeline runs on
    through the human steps), any other action as the page takes it."""

    def command(
        ctx: typer.Context,
        project_id: str,
        message: str = "",
        wait: bool = False,
        auto_confirm: bool = False,
    ) -> None:
        said = _said(message)
        if action.name in CHAT_ACTIONS:
            _chat(ctx, project_id, action.name, said, wait=wait)
        elif is_decision(action.name):
            _decide(ctx, project_id, action.name, auto_confirm, said)
        else:
            _take(ctx, project_id, action.name, said)

    shown = [_CONTEXT, _PROJECT]
    if made.words is not None:
        words = Annotated[str, typer.Argument(help=made.words)]
        shown.append(Parameter("message", Parameter.POSITIONAL_OR_KEYWORD, annotation=words))
    if made.option is not None:
        shown.append(_OPTIONS[made.option])
    command.__signature__ = Signature(shown, return_annotation=None)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in shown} | {"return": None}
    command.__name__ = command.__qualname__ = action.cli_verb
    return command


_CONTEXT = Parameter("ctx", Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context)
_PROJECT = Parameter("project_id", Parameter.POSITIONAL_OR_KEYWORD, annotation=ProjectArgument)
_OPTIONS = {
    "wait": Parameter("wait", Parameter.KEYWORD_ONLY, annotation=WaitOption, default=False),
    "auto_confirm": Parameter(
        "auto_confirm", Parameter.KEYWORD_ONLY, annotation=AutoConfirm, default=False
    ),
}
"""What Typer reads of a made command (`inspect.signature`): its arguments and option."""

for _action in ACTIONS.values():
    if _action.cli is not None:
        app.command(name=_action.cli_verb, help=_action.cli.help)(command_of(_action, _action.cli))


def _chat(
    ctx: typer.Context, project_id: str, action: str, message: str = "", *, wait: bool
) -> None:
    from thoughtforge.actions.hand_over import Delivery, answer_in_chat, kept_note, when_read_now
    from thoughtforge.actions.replying import reply_point

    project = _taking(ctx, project_id, action, message)
    point = reply_point(project)
    delivery = answer_in_chat(
        config_of(ctx), project, action, message, busy_seconds=BUSY_WAIT_SECONDS, on_busy=_busy
    )
    if delivery is Delivery.HANDED_OVER:
        out.print(_sent(action, project_id))
        if wait:
            print_reply(project, point)
    elif delivery is Delivery.QUEUED:
        out.print(f"No run is waiting: message queued; {when_read_now(project)}.")
    elif delivery is Delivery.KEPT:
        out.print(kept_note(project, message))
    elif delivery is Delivery.NOT_TAKEN:  # it halted or finished since the composer was read
        kept = "Your message is kept in the chat. " if message.strip() else ""
        raise ThoughtForgeError(f"{kept}{project_id} is {project.status().phase} now.")
    else:
        raise ThoughtForgeError(
            f"no run of {project_id} is waiting for input; start one with "
            f"`thoughtforge continue {project_id}`"
        )


def _taking(ctx: typer.Context, project_id: str, action: str, message: str) -> Project:
    """The project, if it takes `action` now: refused as the page refuses it (`check_answer`,
    the same words), then the commands that do what the page offers instead."""
    from thoughtforge.actions.answering import check_answer
    from thoughtforge.actions.project_page import project_named
    from thoughtforge.actions.run_state import current_composer
    from thoughtforge.cli.next_steps import offered_commands
    from thoughtforge.errors import ActionRefused

    project = project_named(config_of(ctx), project_id)
    composer = current_composer(config_of(ctx), project)
    try:
        check_answer(composer, action, message)
    except ActionRefused as refused:
        offered = [offer.name for offer in composer.actions]
        instead = offered_commands(project_id, project.status().phase, offered)
        if composer.allows(action) or not instead:
            raise
        raise ActionRefused(f"{refused}\n{instead}") from None
    return project


def _said(message: str) -> str:
    """The message as given, or read from standard input for `-`."""
    return read_text_source("-", "message") if message == "-" else message


def _sent(action: str, project_id: str) -> str:
    """What was handed over, in the words of the button that does it on the page."""
    what = "your message" if action == "send" else ACTIONS[action].label
    return f"Sent {what} to the waiting run of {project_id}."


def _edit_draft(
    ctx: typer.Context, project_id: str, from_file: Path | None, *, confirming: str | None
) -> bool:
    """Save the person's edit of the draft (checked for `confirming`, the Confirm to follow);
    False when there was nothing to save (the text unchanged). A refused edit typed in the
    editor is kept in `rejected/` before the refusal is raised."""
    from thoughtforge.actions.draft import (
        DraftEdit,
        editable_draft,
        keep_refused_edit,
        save_draft_edit,
    )
    from thoughtforge.actions.project_page import project_named
    from thoughtforge.errors import DraftRefused

    project = project_named(config_of(ctx), project_id)
    draft = editable_draft(config_of(ctx), project)  # refused as the page's, before the editor
    text = _read_edit(from_file) if from_file else _edit_in_editor(draft.text)
    if text.strip() == draft.text.strip():
        done = "saved or confirmed" if confirming else "saved"
        out.print(
            f"The {draft.kind} is unchanged: nothing was {done} "
            f"(`thoughtforge confirm {project_id}` confirms it as it is)."
        )
        return False
    try:
        edit = DraftEdit(text=text, version=draft.version, confirm=confirming == "confirm")
        save_draft_edit(project, edit)
    except DraftRefused as exc:
        if from_file is not None:
            raise ThoughtForgeError(f"{exc}. Nothing was saved; {from_file} is kept.") from None
        kept = keep_refused_edit(project, text)
        verb = "confirm" if confirming else "edit"
        raise ThoughtForgeError(
            f"{exc}. Your text is kept in {kept}: fix it, then "
            f"`thoughtforge {verb} {project_id} --from {kept}`."
        ) from None
    out.print(f"Saved your edit as the {draft.kind}.")
    return True


def _read_edit(path: Path) -> str:
    return read_capped_text(path, MAX_TEXT_FILE_BYTES, "edit")


def _edit_in_editor(text: str) -> str:
    """The text as the person leaves it in $VISUAL or $EDITOR."""
    import os

    import click

    if not (os.environ.get("VISUAL") or os.environ.get("EDITOR")):
        raise ThoughtForgeError("set $EDITOR (or $VISUAL) to edit the draft, or give --from FILE")
    try:
        edited = click.edit(text, extension=".md", require_save=False)
    except click.ClickException as exc:
        raise ThoughtForgeError(f"the editor failed: {exc.format_message()}") from None
    return text if edited is None else edited


def _decided(ctx: typer.Context, project_id: str, action: Decision, message: str = "") -> Decided:
    from thoughtforge.actions.answering import decide
    from thoughtforge.actions.hand_over import AnsweredMeanwhile, kept_note

    project = _taking(ctx, project_id, action, message)
    try:
        return decide(
            config_of(ctx),
            project,
            action,
            message,
            busy_seconds=BUSY_WAIT_SECONDS,
            on_busy=_busy,
        )
    except AnsweredMeanwhile:
        out.print(kept_note(project, message))
        raise typer.Exit(0) from None


def _busy() -> None:
    err.print("The run is busy (working, or re-entering after your last answer); waiting …")


def _decide(
    ctx: typer.Context,
    project_id: str,
    action: Decision,
    auto_confirm: bool = False,
    message: str = "",
) -> None:
    from thoughtforge.models import AUTONOMOUS_PHASES, Phase

    decided = _decided(ctx, project_id, action, message)
    if decided.status is None:
        out.print(_sent(action, project_id))
        return
    status = decided.status
    out.print(f"{project_id}: {action} → {status.phase}")
    if status.phase in (Phase.DONE, Phase.HALTED):
        return
    if auto_confirm or status.phase in AUTONOMOUS_PHASES:
        run_pipeline(ctx, project_id, auto_confirm)
    else:
        out.print(f"It waits for you: `thoughtforge continue {project_id}`, then say/confirm.")


def _take(ctx: typer.Context, project_id: str, action: str, message: str) -> None:
    """An action with no way of the CLI's own, taken as the page takes it (`take_answer`)."""
    from thoughtforge.actions.answering import Answer, take_answer
    from thoughtforge.config import config_path

    project = _taking(ctx, project_id, action, message)
    answer = Answer(action=action, message=message)
    config_file = config_path(ctx.obj).resolve()
    out.print(take_answer(config_of(ctx), config_file, project, answer).note)
