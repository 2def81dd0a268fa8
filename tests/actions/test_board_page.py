"""`thoughtforge board`'s board: with no projects, the line that says how to start one; with
some, the columns drawn, each card in its phase's."""

from __future__ import annotations

import io

from rich.console import Console

from thoughtforge.actions.board_page import terminal_board
from thoughtforge.config import Config
from thoughtforge.core.creation import create_project


def test_no_projects_is_a_line_and_one_is_a_card_under_brain_dump(config: Config) -> None:
    empty = terminal_board(config)
    assert isinstance(empty, str)
    assert empty.startswith(f"No projects in {config.projects.directory} yet.")

    project = create_project(config, brain_dump="x")
    drawn = terminal_board(config)
    assert not isinstance(drawn, str)
    screen = io.StringIO()
    Console(file=screen, width=200).print(drawn)
    assert "Brain Dump (1)" in screen.getvalue() and project.id in screen.getvalue()
