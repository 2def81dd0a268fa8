"""The inbox: every project, those waiting for the person first, with what they wait for and since
when; then the rest, most recently changed first. And the capacity line (`N/M active`).

Read from each project's `status.json` and recorded wait (`.waiting.json`); an unreadable project
is listed with its problem, never left out.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel

from thoughtforge.config import Config
from thoughtforge.core import current_wait, list_projects
from thoughtforge.core.creation import capacity_message
from thoughtforge.models import HaltReason, Phase
from thoughtforge.phases.chat import PHASE_LABELS
from thoughtforge.web.actions import WAITS_FOR


class InboxEntry(BaseModel):
    project_id: str
    name: str
    phase: str
    phase_label: str
    deliverable_type: str | None = None
    agent: str | None = None
    waits_for: str | None = None
    waiting_since: datetime | None = None
    halted: str | None = None
    terminated: bool = False
    updated_at: datetime | None = None
    problem: str | None = None


class Inbox(BaseModel):
    entries: list[InboxEntry]
    active: int
    limit: int

    @property
    def full(self) -> str | None:
        """The spec's message when no new project can start, else None."""
        return capacity_message(self.active, self.limit) if self.active >= self.limit else None

    @property
    def waiting(self) -> list[InboxEntry]:
        return [entry for entry in self.entries if entry.waits_for]


def inbox(config: Config) -> Inbox:
    entries = []
    listings = list_projects(config)
    for listing in listings:
        project, status = listing.project, listing.status
        if status is None:
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
        waiting = current_wait(project.dir)
        terminated = status.halt_reason is HaltReason.HUMAN_TERMINATED
        entries.append(
            InboxEntry(
                project_id=project.id,
                name=status.project_name or project.id,
                phase=status.phase.value,
                phase_label=PHASE_LABELS[status.phase],
                deliverable_type=status.deliverable_type,
                agent=status.agent,
                waits_for=WAITS_FOR.get(waiting.kind) if waiting and not terminated else None,
                waiting_since=waiting.since if waiting else None,
                halted=status.halt_reason if status.phase is Phase.HALTED else None,
                terminated=terminated,
                updated_at=status.updated_at,
            )
        )
    entries.sort(key=_order)
    active = sum(1 for listing in listings if listing.is_active)
    return Inbox(entries=entries, active=active, limit=config.concurrency.max_parallel_runs)


def _order(entry: InboxEntry) -> tuple[int, float]:
    """Waiting first, the longest-waiting on top; then the most recently changed."""
    if entry.waits_for and entry.waiting_since:
        return (0, entry.waiting_since.timestamp())
    return (1, -(entry.updated_at.timestamp() if entry.updated_at else 0))
