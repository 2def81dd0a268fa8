"""The Vibe Kanban board: one card per project, moved and retitled at every transition.

Every call to Vibe Kanban is in this module. It speaks the local task API of Vibe Kanban 0.0.71
(the last release that keeps cards locally and needs no login): every reply is
`{"success", "data", "message"}`, and a refused request may still come back as HTTP 200, so
`success` is what counts. The server is `vibekanban.url`, else the port a local Vibe Kanban wrote
to its port file. Cards live in one board project (`vibekanban.project_name`), whose git
repository ThoughtForge creates and owns.

The card id is kept in the project (`.board-card.json`), so re-runs never duplicate a card; a
card deleted by hand is created again. `vibekanban.enabled` is read at every update.
"""

from __future__ import annotations

import fcntl
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from pydantic import BaseModel

from thoughtforge.adapters.kanban.client import VibeKanbanClient
from thoughtforge.board.cards import Card, describe, project_card
from thoughtforge.config import VibeKanbanConfig
from thoughtforge.core import git_repo
from thoughtforge.core.hooks import BOARD_CARD_FILE
from thoughtforge.core.own_files import open_own
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import log_event
from thoughtforge.core.state import Status
from thoughtforge.errors import ServiceError
from thoughtforge.models import Phase

_STATUS: dict[Phase, str] = {
    Phase.BRAIN_DUMP: "todo",
    Phase.DISTILLING: "inprogress",
    Phase.HUMAN_REVIEW: "inreview",
    Phase.SPEC_BUILDING: "inreview",
    Phase.BUILDING: "inprogress",
    Phase.POLISHING: "inprogress",
    Phase.DONE: "done",
}
"""The card's Vibe Kanban status for each ThoughtForge column. A terminated project's card is
`cancelled`; any other halted card stays where its project stopped."""


class CardRecord(BaseModel):
    card_id: str
    board_id: str


class BoardSummary(BaseModel):
    url: str
    board_id: str | None
    cards: int


class VibeKanbanBoard:
    """A `Board` for `transition()`: keeps each project's card in step with its files."""

    def __init__(self, settings: Callable[[], VibeKanbanConfig], repo_dir: Path) -> None:
        self._settings = settings
        self._repo_dir = repo_dir
        self._board_ids: dict[tuple[str, str], str] = {}

    def sync(self, project: Project, status: Status) -> None:
        """The card as the project's files are when it is sent (`board.cards.project_card`):
        `status`, just written, is among them, and a sync the courier delivers late shows the
        files since, so the card ends where the project is."""
        settings = self._settings()
        if not settings.enabled:
            return
        api = _Api(server_url(settings), settings.timeout_seconds)
        card = project_card(project)
        with _card_file(project.dir) as record_file:
            record = _read_record(record_file)
            if record is None or not api.update_card(record.card_id, card):
                record = self._new_card(api, settings.project_name, card)
                record_file.seek(0)
                record_file.truncate()
                record_file.write(record.model_dump_json() + "\n")
                record_file.flush()
                api.update_card(record.card_id, card)  # created `todo`: now to its column
        _log_update(project, record.card_id, card)

    def summary(self) -> BoardSummary:
        """What `doctor` reports: the server, the board project if it exists, its card count."""
        settings = self._settings()
        api = _Api(server_url(settings), settings.timeout_seconds)
        board_id = api.find_board(settings.project_name)
        cards = len(api.cards(board_id)) if board_id else 0
        return BoardSummary(url=api.url, board_id=board_id, cards=cards)

    def _new_card(self, api: _Api, board_name: str, card: Card) -> CardRecord:
        """The card is recorded before it is moved, so a failed move never makes a second card;
        a board deleted by hand is looked up (or made) again at the next update."""
        board_id = self._board_id(api, board_name)
        try:
            return CardRecord(card_id=api.create_card(board_id, card), board_id=board_id)
        except ServiceError:
            self._board_ids.pop((api.url, board_name), None)
            raise

    def _board_id(self, api: _Api, name: str) -> str:
        key = (api.url, name)
        if key not in self._board_ids:
            self._board_ids[key] = api.find_board(name) or api.create_board(name, self._repo())
        return self._board_ids[key]

    def _repo(self) -> Path:
        """The board project's repository: Vibe Kanban wants one; ThoughtForge makes it."""
        if not (self._repo_dir / ".git").exists():
            git_repo.init_repo(self._repo_dir)
            readme = self._repo_dir / "README.md"
            readme.write_text("The Vibe Kanban board of ThoughtForge's projects.\n")
            git_repo.commit(self._repo_dir, "ThoughtForge board")
        return self._repo_dir


def server_url(settings: VibeKanbanConfig) -> str:
    """`vibekanban.url`, else the local server from its port file; `ServiceError` if neither."""
    if settings.url:
        return settings.url
    path = port_file()
    try:
        port = int(path.read_text().strip())
    except (OSError, ValueError):
        raise ServiceError(
            f"no Vibe Kanban found: vibekanban.url is not set and {path} holds no port "
            "(is Vibe Kanban running?)"
        ) from None
    return f"http://127.0.0.1:{port}"


def port_file() -> Path:
    """Where a local Vibe Kanban writes the port it chose (when `BACKEND_PORT`/`PORT` is unset)."""
    return Path(tempfile.gettempdir()) / "vibe-kanban" / "vibe-kanban.port"


class _Api(VibeKanbanClient):
    """The board's calls: boards (Vibe Kanban's projects) and cards (its tasks)."""

    def find_board(self, name: str) -> str | None:
        boards = self.call("GET", "/api/projects")
        return next((str(b["id"]) for b in boards if b.get("name") == name), None)

    def create_board(self, name: str, repo: Path) -> str:
        body = {"name": name, "git_repo_path": str(repo), "use_existing_repo": True}
        return str(self.call("POST", "/api/projects", body)["id"])

    def cards(self, board_id: str) -> list[dict[str, Any]]:
        return list(self.call("GET", f"/api/tasks?project_id={board_id}"))

    def create_card(self, board_id: str, card: Card) -> str:
        """Vibe Kanban creates every task as `todo`, whatever it is sent."""
        body = {"project_id": board_id, "title": card.title, "description": describe(card)}
        return str(self.call("POST", "/api/tasks", body)["id"])

    def update_card(self, card_id: str, card: Card) -> bool:
        """False when the card is gone (deleted by hand, or another board's)."""
        body = {"status": _status(card), "title": card.title, "description": describe(card)}
        try:
            self.call("PUT", f"/api/tasks/{card_id}", body)
        except ServiceError as exc:
            if exc.status == 404:
                return False
            raise
        return True


def _status(card: Card) -> str:
    return "cancelled" if card.badge == "TERMINATED" else _STATUS[card.column]


def _log_update(project: Project, card_id: str, card: Card) -> None:
    log_event(project.dir, "card_updated", card_id=card_id, status=_status(card), title=card.title)


def _read_record(record_file: TextIO) -> CardRecord | None:
    """None for no record yet, or one a crash cut short: the card is then created anew."""
    record_file.seek(0)
    try:
        return CardRecord.model_validate_json(record_file.read())
    except ValueError:
        return None


@contextmanager
def _card_file(project_dir: Path) -> Iterator[TextIO]:
    """The record, locked: two processes updating one card (a run and a `terminate`) create it
    once."""
    with open_own(project_dir / BOARD_CARD_FILE, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield handle
        finally:
            handle.flush()  # before the lock goes: the next holder reads the record
            fcntl.flock(handle, fcntl.LOCK_UN)
