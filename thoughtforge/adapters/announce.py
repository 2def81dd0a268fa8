"""Every transition of this process, announced: the Vibe Kanban card and the notification channels.

An entry point (a CLI command, a flow) calls `announce_transitions` once with its config. From
then on `transition()` hands the board and the channels to the courier, which calls them off the
pipeline's path, with the settings the config file holds at that moment.
"""

from __future__ import annotations

from pathlib import Path

from thoughtforge.adapters.courier import courier
from thoughtforge.adapters.kanban import VibeKanbanBoard
from thoughtforge.adapters.notify import ChannelNotifier
from thoughtforge.config import Config, LiveConfig, state_dir
from thoughtforge.core import (
    Board,
    Notification,
    Notifier,
    Project,
    Status,
    TransitionHooks,
    install_hooks,
)

BOARD_REPO = "vibe-kanban-board"


class DeferredBoard:
    def __init__(self, board: Board) -> None:
        self.board = board

    def sync(self, project: Project, status: Status) -> None:
        courier.post(project, "board", lambda: self.board.sync(project, status))


class DeferredNotifier:
    def __init__(self, notifier: Notifier) -> None:
        self.notifier = notifier

    def send(self, project: Project, notification: Notification) -> None:
        courier.post(project, "notification", lambda: self.notifier.send(project, notification))


def announce_transitions(config_file: Path, config: Config) -> None:
    """From now on, every transition in this process updates its card and notifies."""
    live = LiveConfig(config_file, config)
    install_hooks(
        TransitionHooks(
            notifier=DeferredNotifier(ChannelNotifier(lambda: live.current().notifications)),
            board=DeferredBoard(_board(live)),
        )
    )


def board_for(config_file: Path, config: Config) -> VibeKanbanBoard:
    """The board itself, called directly (by `doctor`)."""
    return _board(LiveConfig(config_file, config))


def _board(live: LiveConfig) -> VibeKanbanBoard:
    return VibeKanbanBoard(lambda: live.current().vibekanban, state_dir(live.path) / BOARD_REPO)
