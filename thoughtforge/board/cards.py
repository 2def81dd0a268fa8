"""What a board shows of a project: its column, its badge and its polish metrics.

Every board ThoughtForge draws or mirrors (the terminal, the web page, Vibe Kanban) is made of
these cards, so they never disagree on where a project stands. A halt is a badge, not a column:
the card stays where the project stopped. Where the project stands is the read model's
(`core.project_view`, what the composer, inbox and `status` read too): its status, revision and
where its run is; the card adds the metrics the read model does not carry (the polish loop's
trajectory and counts, the spend). Pure: it reads the state files and nothing else.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel

from thoughtforge.config import Config
from thoughtforge.core.project import Project, list_projects
from thoughtforge.core.project_view import ProjectView, RunPlace, read_view
from thoughtforge.core.revisions import revision_words
from thoughtforge.core.spend.budget import short
from thoughtforge.core.spend.ledger import read_usage
from thoughtforge.core.state import POLISH_STATE_FILE, Status, read_polish_state
from thoughtforge.errors import StateFileError
from thoughtforge.halt_advice import HALT_ADVICE
from thoughtforge.models import Counts, DeliverableType, HaltReason, Phase

COLUMNS: dict[Phase, str] = {
    Phase.BRAIN_DUMP: "Brain Dump",
    Phase.DISTILLING: "Distilling",
    Phase.HUMAN_REVIEW: "Human Review",
    Phase.SPEC_BUILDING: "Spec Building",
    Phase.BUILDING: "Building",
    Phase.POLISHING: "Polishing",
    Phase.DONE: "Done",
}
"""The columns, left to right, with their titles."""

_SPARKS = "▁▂▃▄▅▆▇█"


class Badge(StrEnum):
    HALTED = "HALTED"
    TERMINATED = "TERMINATED"
    UNREADABLE = "UNREADABLE"


class Card(BaseModel):
    project_id: str
    name: str
    column: Phase
    badge: Badge | None = None
    halt_reason: HaltReason | None = None
    deliverable_type: DeliverableType | None = None
    agent: str | None = None
    updated_at: datetime | None = None
    iteration: int = 0
    trajectory: list[int] = []
    """The total issue count of each polish iteration, oldest first."""
    counts: Counts | None = None
    problem: str | None = None
    """Why a state file could not be read, when one could not."""
    spent: str | None = None
    """What the project's agent calls cost (`$1.23`, with its own budget `$1.23 / $5.00`);
    None before its first call."""
    revision: int = 1
    run: RunPlace | None = None
    """Where the project's run is (`core.project_view`), for boards drawn when they are read;
    None when the project is unreadable."""

    @property
    def title(self) -> str:
        title = f"{self.name} · {COLUMNS[self.column]}"
        if self.revision > 1:
            title = f"{title} · {revision_words(self.revision)}"
        return f"{title} · {self.badge}" if self.badge else title


def card_of(view: ProjectView) -> Card:
    """The card of a project as its read model says it stands."""
    status, project = view.status, view.project
    column = status.halted_from if status.phase is Phase.HALTED else status.phase
    card = Card(
        project_id=project.id,
        name=status.project_name or project.id,
        column=column if column in COLUMNS else Phase.BRAIN_DUMP,
        badge=_badge(status),
        halt_reason=status.halt_reason,
        deliverable_type=status.deliverable_type,
        agent=status.agent,
        updated_at=status.updated_at,
        revision=view.revision,
        run=view.run,
    )
    return _with_spend(_with_polish_metrics(card, project.dir), project.dir)


def project_card(project: Project) -> Card:
    """The project's card as its files are now; an unreadable project's card (badged, in the
    first column) when they cannot be read."""
    try:
        return card_of(read_view(project))
    except StateFileError as exc:
        return Card(
            project_id=project.id,
            name=project.id,
            column=Phase.BRAIN_DUMP,
            badge=Badge.UNREADABLE,
            problem=str(exc),
        )


def board_cards(config: Config) -> list[Card]:
    """Every project's card, unreadable projects included; not the archived ones
    (`core.archive`): they are out of the way until unarchived."""
    return [
        project_card(listing.project)
        for listing in list_projects(config)
        if listing.status is None or listing.status.archived_at is None
    ]


def by_column(cards: list[Card]) -> dict[Phase, list[Card]]:
    """The cards under each column, most recently updated first."""
    columns: dict[Phase, list[Card]] = {phase: [] for phase in COLUMNS}
    for card in cards:
        columns[card.column].append(card)
    for column in columns.values():
        column.sort(key=lambda c: c.updated_at.timestamp() if c.updated_at else 0, reverse=True)
    return columns


def sparkline(values: list[int]) -> str:
    """One block character per value, scaled between the lowest and the highest."""
    if not values:
        return ""
    low, high = min(values), max(values)
    span = (high - low) or 1
    return "".join(_SPARKS[(v - low) * (len(_SPARKS) - 1) // span] for v in values)


def describe(card: Card) -> str:
    """The card's details as Markdown lines, for boards that show a description. Not where the
    run is: a mirrored board (Vibe Kanban) is updated at each phase change only, and the run
    works, waits and is suspended between two."""
    lines = [
        f"**Phase:** {COLUMNS[card.column]}" + (f" ({card.badge})" if card.badge else ""),
        f"**Deliverable:** {card.deliverable_type or 'not decided yet'}",
        f"**Agent:** {card.agent or 'unknown'}",
    ]
    if card.revision > 1:
        lines.append(f"**Revision:** {card.revision}")
    if card.halt_reason:
        advice = HALT_ADVICE.get(card.halt_reason)
        lines.append(f"**Halt reason:** {card.halt_reason}" + (f" — {advice}" if advice else ""))
    if card.iteration:
        lines.append(f"**Polish iteration:** {card.iteration}")
    if card.trajectory:
        totals = " → ".join(str(t) for t in card.trajectory[-12:])
        lines.append(f"**Trajectory (total issues):** {sparkline(card.trajectory)} {totals}")
    if card.counts is not None:
        c = card.counts
        lines.append(f"**Last counts:** {c.critical} critical, {c.medium} medium, {c.minor} minor")
    if card.spent:
        lines.append(f"**Spent:** {card.spent}")
    if card.problem:
        lines.append(f"**Problem:** {card.problem}")
    lines.append(f"**Project id:** {card.project_id}")
    return "\n\n".join(lines)


def _badge(status: Status) -> Badge | None:
    if status.halt_reason is HaltReason.HUMAN_TERMINATED:
        return Badge.TERMINATED
    return Badge.HALTED if status.phase is Phase.HALTED else None


def _with_polish_metrics(card: Card, project_dir: Path) -> Card:
    if not (project_dir / POLISH_STATE_FILE).exists():
        return card
    try:
        state = read_polish_state(project_dir)
    except StateFileError as exc:
        return card.model_copy(update={"problem": str(exc)})
    return card.model_copy(
        update={
            "iteration": state.iteration,
            "trajectory": [entry.total for entry in state.trajectory],
            "counts": state.counts if state.iteration else None,
        }
    )


def _with_spend(card: Card, project_dir: Path) -> Card:
    try:
        ledger = read_usage(project_dir)
    except StateFileError:
        return card.model_copy(update={"spent": "unknown (usage.json unreadable)"})
    if not ledger.total.calls:
        return card
    return card.model_copy(update={"spent": short(ledger.total, ledger.budget)})
