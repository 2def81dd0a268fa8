"""A card, from the project's read model: where it stands, and its description as boards that
show one read it."""

from __future__ import annotations

from datetime import UTC, datetime

from rich.console import Console

from thoughtforge.board.cards import Badge, Card, describe, project_card
from thoughtforge.board.text import render_board
from thoughtforge.config import Config
from thoughtforge.core.creation import create_project
from thoughtforge.core.project_view import RunPlace
from thoughtforge.core.revisions import REVISIONS_FILE
from thoughtforge.core.run_lock import hold_run_lock
from thoughtforge.core.state import write_status
from thoughtforge.core.transition import transition
from thoughtforge.core.waiting import Waiting, record_wait
from thoughtforge.models import HaltReason, Phase

NOW = datetime(2026, 11, 26, tzinfo=UTC)


def test_a_polish_halt_card_says_what_to_do_beside_its_reason(config: Config) -> None:
    project = create_project(config)
    halted = {
        "phase": Phase.HALTED,
        "halted_from": Phase.POLISHING,
        "halt_reason": HaltReason.GUARD_FIX_CIRCULAR,
    }
    write_status(project.dir, project.status().model_copy(update=halted))
    card = project_card(project)
    assert (card.column, card.badge, card.run) == (Phase.POLISHING, Badge.HALTED, RunPlace.HALTED)
    text = describe(card)
    assert "**Halt reason:** guard_fix_circular — the fixer keeps undoing its own changes" in text


def test_a_card_says_where_the_run_is_as_the_read_model_does(config: Config) -> None:
    """Before, a card read `status.json` alone: a project whose run had died mid-phase looked
    like one the AI works on, and a project waiting for the person looked like either."""
    project = create_project(config)
    transition(project, Phase.DISTILLING)
    assert project_card(project).run is RunPlace.NONE
    assert "working" not in _drawn(project_card(project))
    with hold_run_lock(project):
        assert project_card(project).run is RunPlace.WORKING
        assert "working" in _drawn(project_card(project))
    transition(project, Phase.HUMAN_REVIEW)
    waiting = Waiting(
        key="k", kind="ReviewTurn", phase=Phase.HUMAN_REVIEW, chat_length=1, since=NOW
    )
    record_wait(project.dir, waiting)
    card = project_card(project)
    assert (card.column, card.run) == (Phase.HUMAN_REVIEW, RunPlace.WAITING)
    assert "waits for you" in _drawn(card)
    assert "waits for you" not in describe(card)  # a mirrored board is not kept up to the minute


def _drawn(card: Card) -> str:
    console = Console(width=120, record=True, color_system=None)
    console.print(render_board([card]))
    return console.export_text()


def test_an_unreadable_revisions_file_makes_an_unreadable_card_naming_it(config: Config) -> None:
    """Before, the card said revision 1 while the page refused to read the project."""
    project = create_project(config)
    (project.dir / REVISIONS_FILE).write_text("{not json")
    card = project_card(project)
    assert card.badge is Badge.UNREADABLE and card.problem is not None
    assert REVISIONS_FILE in card.problem
