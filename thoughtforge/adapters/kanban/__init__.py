"""Kanban boards that mirror each project as a card."""

from __future__ import annotations

from typing import Protocol

from thoughtforge.state import Status


class Board(Protocol):
    def sync(self, project_id: str, status: Status) -> None: ...


class NullBoard:
    """The default while `vibekanban.enabled` is false."""

    def sync(self, project_id: str, status: Status) -> None:
        return None
