"""The inbox: every project, those waiting for the person first, with what they wait for and since
when; then the rest, most recently changed first. And the capacity line (`N/M active`).

Read from each project's view (`core.project_view`: its status, its recorded wait, where its run
is); an unreadable project is listed with its problem, never left out.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from pydantic import BaseModel

from thoughtforge.actions.composer import WAITS_FOR
from thoughtforge.board.words import phase_words, working_title
from thoughtforge.catalogue import halt_label
from thoughtforge.config import Config
from thoughtforge.core.project import list_projects
from thoughtforge.core.project_view import read_view
from thoughtforge.core.state import Status, read_chat
from thoughtforge.errors import StateFileError
from thoughtforge.models import HaltReason, Phase

FULL_HOUSE = (
    "Maximum parallel projects reached ({active}/{limit}). To start a new one, finish a project "
    "or open a halted one and press Terminate or Archive (a halted project holds its slot until "
    "then)."
)
"""The spec's message, with this page's own way to free a slot."""


class InboxEntry(BaseModel):
    project_id: str
    name: str
    phase: str
    phase_label: str
    deliverable_type: str | None = None
    agent: str | None = None
    run: str | None = None
    """Where its run is (`core.project_view.RunPlace`): none, starting, working, waiting, …"""
    waits_for: str | None = None
    waiting_since: datetime | None = None
    halted: str | None = None
    """The halt in a person's words; `halt_reason` is its value, for programs (the MCP tools)."""
    halt_reason: str | None = None
    terminated: bool = False
    archived: bool = False
    """Out of the inbox's lists and the active count (`core.archive`), shown by its filter."""
    updated_at: datetime | None = None
    problem: str | None = None


class Inbox(BaseModel):
    entries: list[InboxEntry]
    active: int
    limit: int

    @property
    def full(self) -> str | None:
        """The spec's message when no new project can start, else None."""
        if self.active < self.limit:
            return None
        return FULL_HOUSE.format(active=self.active, limit=self.limit)

    @property
    def waiting(self) -> list[InboxEntry]:
        return [entry for entry in self.entries if entry.waits_for and not entry.archived]

    @property
    def current(self) -> list[InboxEntry]:
        return [entry for entry in self.entries if not (entry.terminated or entry.archived)]

    @property
    def terminated(self) -> list[InboxEntry]:
        """Kept apart: they will not go on."""
        return [entry for entry in self.entries if entry.terminated and not entry.archived]

    @property
    def archived(self) -> list[InboxEntry]:
        """Out of the way, shown only when asked for (the inbox's Archived filter)."""
        return [entry for entry in self.entries if entry.archived]

    @property
    def listed(self) -> list[InboxEntry]:
        """Every project but the archived ones: what a list of projects shows unless asked."""
        return [entry for entry in self.entries if not entry.archived]


def inbox(config: Config) -> Inbox:
    entries = []
    listings = list_projects(config)
    for listing in listings:
        project, status = listing.project, listing.status
        try:
            view = read_view(project) if status is not None else None
        except StateFileError as exc:
            view, listing = None, listing.model_copy(update={"error": str(exc)})
        if status is None or view is None:
            entries.append(
                InboxEntry(
                    project_id=project.id,
                    name=project.id,
                    phase="unreadable",
                    phase_label="unreadable",
                    problem=listing.error,
                )
            )
            continue
        waiting = view.waiting
        terminated = status.halt_reason is HaltReason.HUMAN_TERMINATED
        entries.append(
            InboxEntry(
                project_id=project.id,
                name=_title(project.dir, status, project.id),
                phase=status.phase.value,
                phase_label=phase_words(status),
                deliverable_type=status.deliverable_type,
                agent=status.agent,
                run=view.run.value,
                waits_for=WAITS_FOR.get(waiting.kind) if waiting and not terminated else None,
                waiting_since=waiting.since if waiting else None,
                halted=halt_label(status.halt_reason) if status.phase is Phase.HALTED else None,
                halt_reason=status.halt_reason if status.phase is Phase.HALTED else None,
                terminated=terminated,
                archived=status.archived_at is not None,
                updated_at=status.updated_at,
            )
        )
    entries.sort(key=_order)
    active = sum(1 for listing in listings if listing.is_active)
    return Inbox(entries=entries, active=active, limit=config.concurrency.max_parallel_runs)


def _title(project_dir: Path, status: Status, fallback: str) -> str:
    """Its name; until Phase 1 names it, its brain dump's first words (the chat is still
    Phase 1's then, and small)."""
    if status.project_name:
        return status.project_name
    try:
        return working_title(status, read_chat(project_dir), fallback)
    except StateFileError:
        return fallback


def _order(entry: InboxEntry) -> tuple[int, float]:
    """Waiting first, the longest-waiting on top; then the most recently changed."""
    if entry.waits_for and entry.waiting_since:
        return (0, entry.waiting_since.timestamp())
    return (1, -(entry.updated_at.timestamp() if entry.updated_at else 0))
