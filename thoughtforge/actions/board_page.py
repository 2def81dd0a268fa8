"""The board as the page shows it: every project's card (`board.cards`) in its phase's column,
the terminated ones apart, a card Phase 1 has not named yet titled by its brain dump's first
words, as the inbox and its page are."""

from __future__ import annotations

from pydantic import BaseModel
from rich.console import RenderableType

from thoughtforge.actions.project_header import titled
from thoughtforge.actions.project_page import project_named
from thoughtforge.board.cards import COLUMNS, Card, board_cards, by_column
from thoughtforge.board.text import START_HINT, render_board
from thoughtforge.config import Config
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.models import Phase


class BoardPage(BaseModel):
    columns: dict[Phase, list[Card]]
    terminated: list[Card]
    titles: dict[Phase, str]
    any_cards: bool
    start_hint: str


def cards(config: Config) -> list[Card]:
    """Every project's card, in no column yet."""
    return board_cards(config)


def terminal_board(config: Config) -> RenderableType | str:
    """`thoughtforge board`: the cards as columns drawn for a terminal, or, with no projects yet,
    the line that says how to start one."""
    found = board_cards(config)
    if not found:
        return f"No projects in {config.projects.directory} yet. {START_HINT}"
    return render_board(found)


def board_page(config: Config) -> BoardPage:
    every = [_titled(config, card) for card in board_cards(config)]
    terminated = [card for card in every if card.badge == "TERMINATED"]
    return BoardPage(
        columns=by_column([card for card in every if card not in terminated]),
        terminated=terminated,
        titles=COLUMNS,
        any_cards=bool(every),
        start_hint=START_HINT,
    )


def _titled(config: Config, card: Card) -> Card:
    if card.name != card.project_id or card.badge == "UNREADABLE":
        return card
    try:
        title = titled(project_named(config, card.project_id), card.name)
    except ThoughtForgeError:
        return card
    return card.model_copy(update={"name": title})
