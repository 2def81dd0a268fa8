"""The Typer app every command group registers on, and what the groups share.

Start-up stays light: Prefect and the phases are imported only inside the commands that use them,
so `--help`, `status` and `new` answer quickly. User errors print one line, never a traceback.
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from thoughtforge.bounded_input import MAX_TEXT_FILE_BYTES, read_capped_text
from thoughtforge.config import Config, config_path, load_config
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.terminal_text import inert_markup

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
ProjectArgument = Annotated[str, typer.Argument(help="The project id (see `thoughtforge status`).")]
AutoConfirm = Annotated[
    bool,
    typer.Option(help="Never wait for a human: distil at once, confirm the first proposals."),
]
ResourceOption = Annotated[
    list[Path] | None,
    typer.Option("--resource", "-r", help="A file to add to the project's resources/."),
]


DebugOption = Annotated[
    bool,
    typer.Option(
        "--debug", help="Show the full traceback (Prefect's too) when a command or a run fails."
    ),
]

_debugging: list[bool] = []
"""Set by `--debug`, for `main`: an error then shows where it came from, not one line only."""


def _print_version(asked: bool) -> None:
    """ThoughtForge's version and the Prefect it runs on, read from the installed packages'
    metadata (importing Prefect would take a second)."""
    if asked:
        from importlib.metadata import version

        out.print(f"thoughtforge {version('thoughtforge')} (prefect {version('prefect')})")
        raise typer.Exit()


VersionOption = Annotated[
    bool,
    typer.Option(
        "--version",
        callback=_print_version,
        is_eager=True,
        help="Print ThoughtForge's version (and Prefect's), then exit.",
    ),
]


@app.callback()
def _root(
    ctx: typer.Context,
    config: ConfigOption = None,
    debug: DebugOption = False,
    version: VersionOption = False,
) -> None:
    ctx.obj = config
    ctx.meta["debug"] = debug
    if debug:
        _debugging.append(True)


def config_of(ctx: typer.Context, *, announced: bool = True) -> Config:
    """Loaded once per command, however many helpers ask for it; from then on, the command's
    transitions update the board and notify as the config says (not `announced`: the command
    has that done later itself, as `mcp` does at its first tool call)."""
    if "config" not in ctx.meta:
        loaded = load_config(ctx.obj, announce=lambda msg: err.print(f"[yellow]{msg}[/]"))
        if announced:
            from thoughtforge.actions.announcing import announce_from_this_process

            announce_from_this_process(config_path(ctx.obj), loaded)
        ctx.meta["config"] = loaded
    config: Config = ctx.meta["config"]
    return config


def read_text_source(source: str, what: str = "brain dump") -> str:
    """The text (a brain dump, a change, a message) from a file, or from stdin for `-`; it must
    be UTF-8 text."""
    name = "standard input" if source == "-" else source
    if source != "-":
        return read_capped_text(Path(source), MAX_TEXT_FILE_BYTES, what)
    data = sys.stdin.buffer.read(MAX_TEXT_FILE_BYTES + 1)
    if len(data) > MAX_TEXT_FILE_BYTES:
        raise ThoughtForgeError(f"the {what} on {name} is over {MAX_TEXT_FILE_BYTES:,} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ThoughtForgeError(
            f"the {what} in {name} is not UTF-8 text (byte {exc.start}): save it as UTF-8"
        ) from None


def reflow_help() -> None:
    """Make each paragraph of every command's help one line: a docstring breaks its lines at 100
    characters, and Typer keeps those breaks after the first paragraph (and in the command list),
    so a narrow terminal shows a line cut short in mid-sentence."""
    for command in app.registered_commands:
        text = command.help or inspect.getdoc(command.callback) or ""
        command.help = "\n\n".join(" ".join(part.split()) for part in text.split("\n\n"))


def main() -> None:
    """The console script: a ThoughtForge error is one red line and exit code 1."""
    try:
        app()
    except ThoughtForgeError as exc:
        if _debugging:
            err.print_exception()
        err.print(f"[red]error:[/] {inert_markup(str(exc))}", highlight=False, soft_wrap=True)
        sys.exit(1)
