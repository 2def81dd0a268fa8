"""What `thoughtforge status` shows: the project table, or one project in detail."""

from __future__ import annotations

from pathlib import Path

from rich.console import Group
from rich.table import Table
from rich.text import Text

from thoughtforge.config import Config
from thoughtforge.core import (
    POLISH_STATE_FILE,
    Status,
    changes,
    current_wait,
    list_projects,
    open_project,
    read_polish_state,
)
from thoughtforge.errors import StateFileError
from thoughtforge.models import Phase
from thoughtforge.terminal_text import inert_text


def project_table(config: Config) -> tuple[Table, list[str]]:
    """The table, plus one line per project whose status.json could not be read."""
    table = Table()
    for column in ("id", "name", "phase", "type", "agent", "updated"):
        table.add_column(column, no_wrap=column != "name")
    problems = []
    for listing in list_projects(config):
        project_id = inert_text(listing.project.id)
        if listing.status is None:
            table.add_row(project_id, "", Text("unreadable", style="red"), "", "", "")
            problems.append(listing.error or "")
            continue
        s = listing.status
        table.add_row(
            project_id,
            inert_text(s.project_name or ""),
            _phase_text(s),
            inert_text(s.deliverable_type or ""),
            inert_text(s.agent),
            Text(f"{s.updated_at:%m-%d %H:%M}"),
        )
    return table, problems


def project_detail(config: Config, project_id: str) -> Group:
    """Every status field, the polish summary, and files left uncommitted."""
    project = open_project(config, project_id)
    status = project.status()
    facts = Table(box=None, show_header=False)
    facts.add_row("project", inert_text(project.id))
    facts.add_row("directory", inert_text(str(project.dir)))
    for field, value in status.model_dump(mode="json").items():
        facts.add_row(field, inert_text("" if value is None else str(value)))
    parts: list[Table | Text] = [facts]
    waiting = current_wait(project.dir)
    if waiting is not None:
        where = waiting.page or "its run (the Prefect server it used is not recorded)"
        parts.append(
            inert_text(
                f"waiting for you since {waiting.since:%m-%d %H:%M} ({waiting.kind}): {where} — "
                f"or `thoughtforge say|distill|realign|confirm|answer|resume {project.id}`",
                style="cyan",
            )
        )
    if (project.dir / POLISH_STATE_FILE).exists():
        parts.append(_polish_summary(project.dir))
    foreign = changes(project.dir).foreign
    if foreign:
        listing = ", ".join(foreign)
        parts.append(
            inert_text(f"not written by ThoughtForge, not committed: {listing}", style="yellow")
        )
    return Group(*parts)


def _phase_text(status: Status) -> Text:
    if status.phase is Phase.HALTED:
        return Text(f"halted ({status.halt_reason}) in {status.halted_from}", style="yellow")
    return Text(status.phase.value)


def _polish_summary(project_dir: Path) -> Text:
    try:
        state = read_polish_state(project_dir)
    except StateFileError as exc:
        return inert_text(f"polish state: {exc}", style="red")
    c = state.counts
    return Text(
        f"polish: iteration {state.iteration}, "
        f"{c.critical} critical, {c.medium} medium, {c.minor} minor"
        + (" (completed)" if state.completed else "")
    )
