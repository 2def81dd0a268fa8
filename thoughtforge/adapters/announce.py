"""Every transition of this process, announced: the Vibe Kanban card and the notification channels.

An entry point (a CLI command, a flow) calls `announce_transitions` once with its config. From
then on `transition()` hands the board and the channels to the courier, which calls them off the
pipeline's path, with the settings the config file holds at that moment. The board and the
channels are made at their first use, so a command that changes no phase never loads them.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from thoughtforge.adapters.courier import courier
from thoughtforge.config import Config, LiveConfig, state_dir
from thoughtforge.core.hooks import Board, Notification, TransitionHooks, install_hooks
from thoughtforge.core.project import Project
from thoughtforge.core.state import Status

if TYPE_CHECKING:
    from thoughtforge.adapters.kanban import VibeKanbanBoard
    from thoughtforge.adapters.notify import ChannelNotifier

BOARD_REPO = "vibe-kanban-board"


class DeferredBoard:
    def __init__(self, board: Callable[[], Board]) -> None:
        self.board = board

    def sync(self, project: Project, status: Status) -> None:
        courier.post(project, "board", lambda: self.board().sync(project, status))


class DeferredNotifier:
    """Each channel's call goes on a courier lane of its own (the settings are read on the
    courier too, so a transition never waits even for the config file)."""

    def __init__(self, notifier: Callable[[], ChannelNotifier]) -> None:
        self.notifier = notifier

    def send(self, project: Project, notification: Notification) -> None:
        courier.post(project, "notification", lambda: self._hand_out(project, notification))

    def _hand_out(self, project: Project, notification: Notification) -> None:
        for channel, deliver in self.notifier().deliveries(notification):
            courier.post(project, "notification", deliver, lane=f"notification {channel}")


def announce_transitions(config_file: Path, config: Config) -> None:
    """From now on, every transition in this process updates its card and notifies."""
    live = LiveConfig(config_file, config)
    install_hooks(
        TransitionHooks(
            notifier=DeferredNotifier(cache(lambda: _notifier(live))),
            board=DeferredBoard(cache(lambda: _board(live))),
        )
    )


def board_for(config_file: Path, config: Config) -> VibeKanbanBoard:
    """The board itself, called directly (by `doctor`)."""
    return _board(LiveConfig(config_file, config))


def _board(live: LiveConfig) -> VibeKanbanBoard:
    from thoughtforge.adapters.kanban import VibeKanbanBoard

    return VibeKanbanBoard(lambda: live.current().vibekanban, state_dir(live.path) / BOARD_REPO)


def _notifier(live: LiveConfig) -> ChannelNotifier:
    from thoughtforge.adapters.notify import ChannelNotifier

    return ChannelNotifier(lambda: live.current().notifications)
