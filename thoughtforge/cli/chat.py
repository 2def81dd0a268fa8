"""`thoughtforge chat ID`: the project's thread in the terminal, each message with its phase and
time (`--follow` keeps printing new ones), and the AI's reply after `say|distill|realign|confirm
--wait`.

The text is the agent's and the person's, untrusted: it is printed as plain text (no markup) with
control and escape characters shown, never interpreted by the terminal.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Annotated

import typer
from rich.text import Text

from thoughtforge.cli.app import ProjectArgument, app, config_of, out
from thoughtforge.terminal_text import inert_text

if TYPE_CHECKING:
    from thoughtforge.actions.project_page import Project
    from thoughtforge.actions.replying import ReplyPoint
    from thoughtforge.actions.thread import ThreadMessage

POLL_SECONDS = 0.25
REPLY_WAIT_SECONDS = 900.0
"""How long `--wait` waits for the reply (a distillation can take minutes)."""
_NAMES = {"human": "You", "ai": "ThoughtForge", "system": "Notice"}
_STYLES = {"human": "bold cyan", "ai": "bold green", "system": "bold yellow"}

WaitOption = Annotated[
    bool, typer.Option("--wait", help="Then print the AI's reply when it comes.")
]


@app.command()
def chat(
    ctx: typer.Context,
    project_id: ProjectArgument,
    follow: Annotated[
        bool, typer.Option("--follow", "-f", help="Keep printing new messages until Ctrl-C.")
    ] = False,
    last: Annotated[
        int | None, typer.Option(min=1, help="Only the last N messages.", show_default=False)
    ] = None,
) -> None:
    """Print the project's thread: every message with its phase and time."""
    from thoughtforge.actions.project_page import project_named
    from thoughtforge.actions.thread import project_thread

    project = project_named(config_of(ctx), project_id)
    thread = project_thread(project)
    start = max(len(thread) - last, 0) if last else 0
    for message in thread.messages(start):
        print_message(message)
    if not follow:
        return
    try:
        seen = len(thread)
        while True:
            time.sleep(POLL_SECONDS)
            seen = _print_new(project, seen)
    except KeyboardInterrupt:
        return


def print_message(message: ThreadMessage) -> None:
    head = Text()
    head.append(_NAMES[message.role], style=_STYLES[message.role])
    head.append(f"  {message.phase_label} · {message.timestamp:%b %d %H:%M} UTC", "dim")
    if message.read_by:
        head.append(f" · read at {message.read_by}", "dim")
    if message.edited:
        head.append(" · draft edited by you", "dim")
    out.print(head)
    out.print(inert_text(message.content), soft_wrap=True)
    out.print()


def print_reply(project: Project, point: ReplyPoint) -> None:
    """Print what the AI and the system say after `point`, until the run asks the person again
    (a new wait), or the project is done or halted."""
    from thoughtforge.actions.replying import await_reply

    if not await_reply(project, point, REPLY_WAIT_SECONDS, print_message):
        out.print(f"No reply within {REPLY_WAIT_SECONDS:g} s: `thoughtforge chat {project.id} -f`.")


def _print_new(project: Project, seen: int) -> int:
    from thoughtforge.actions.thread import project_thread

    thread = project_thread(project)
    for message in thread.messages(seen):
        print_message(message)
    return len(thread)
