"""The state files of a project (docs/ARCHITECTURE.md lists them, with who writes each).

Reads never guess: a missing, unparsable or invalid file raises `StateFileError` with the path and
the reason, and the file is left exactly as it was. Writes are atomic.
"""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from thoughtforge.bounded_input import JsonTooDeep
from thoughtforge.core.atomic_write import unwritable, write_text_atomic
from thoughtforge.core.own_files import open_own, read_own_json
from thoughtforge.errors import ProjectFileError, StateFileError, schema_problems
from thoughtforge.models import Counts, DeliverableType, HaltReason, Issue, Phase

STATUS_FILE = "status.json"
POLISH_STATE_FILE = "polish_state.json"
CHAT_HISTORY_FILE = "chat_history.json"
CHAT_ARCHIVE_FILE = "chat_archive.json"
CODE_BUILD_FILE = "code_build.json"
ACCEPTANCE_LOCK_FILE = "acceptance_lock.json"
BUILD_PROGRESS_FILE = "build_progress.json"
STATE_LOCK_FILE = ".state.lock"


def utc_now() -> datetime:
    """Every timestamp in the state files is timezone-aware UTC."""
    return datetime.now(UTC)


class _StateModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Status(_StateModel):
    project_name: str | None = None
    phase: Phase
    deliverable_type: DeliverableType | None = None
    agent: str
    created_at: datetime
    updated_at: datetime
    halt_reason: HaltReason | None = None
    halted_from: Phase | None = None
    archived_at: datetime | None = None
    """Set while the project is archived (`core.archive`): out of the inbox and the active
    count. Any phase change clears it (`transition`): a project that moves again is back."""


FixOutcome = Literal["none", "changed", "unchanged", "restored", "refused"]
"""What an iteration's fix did to the deliverable: none asked (a clean review), a new version,
the same bytes, an earlier version back, or an answer refused (the deliverable kept)."""


class TrajectoryEntry(_StateModel):
    iteration: int = Field(ge=1)
    critical: int = Field(ge=0)
    medium: int = Field(ge=0)
    minor: int = Field(ge=0)
    total: int = Field(ge=0)
    fix_applied: bool
    timestamp: datetime
    fix: FixOutcome | None = None
    """None in files written before the field existed (`fix_applied` is all they tell)."""
    restored: int | None = None
    """With `fix: restored`: the iteration whose fix made that version (0: as polishing began)."""
    version: str | None = None
    """The content hash of the deliverable this iteration's review read."""
    usd: float | None = Field(None, ge=0)
    """What this iteration's agent calls cost (`usage.json`); None where no price was known."""
    tokens: int | None = Field(None, ge=0)
    """Its agent calls' tokens, in and out; None in files written before the field existed."""


class SecondReview(_StateModel):
    """A clean review of a version an earlier review found critical or medium issues in: the
    next review is asked to check those issues again before the loop may call it done."""

    clean_at: int
    found_at: int
    issues: list[Issue]


class PolishState(_StateModel):
    iteration: int = Field(0, ge=0)
    counts: Counts = Counts()
    trajectory: list[TrajectoryEntry] = []
    tests_passed: bool | None = None
    completed: bool = False
    halt_reason: HaltReason | None = None
    last_issues: list[Issue] = []
    timestamp: datetime = Field(default_factory=utc_now)
    versions: dict[str, int] = {}
    """Content hash of every accepted version of the deliverable → the iteration whose fix first
    made it (0: as polishing began), so a fix that restores one is recognised."""
    concerns: dict[str, list[Issue]] = {}
    """Content hash → the critical and medium issues the last review to find any in that version
    found: what a second review is given when a later review of it comes back clean."""
    second_review: SecondReview | None = None
    plateau: bool = False
    """Done above the thresholds (at a stagnation plateau, or on value): `last_issues` are still
    open."""


class ChatMessage(_StateModel):
    role: Literal["human", "ai", "system"]
    content: str
    phase: Phase
    timestamp: datetime = Field(default_factory=utc_now)
    read_by: str | None = None
    """Where an autonomous phase put the person's message before its agent (e.g. `polish
    iteration 3`); absent until then, and in files written before the field existed."""
    edited: bool | None = None
    """True on a draft (a distillation, a spec proposal) the person edited directly
    (`phases.draft_edits`): it stands as the AI's latest draft; absent on every other message."""


ChatHistory = list[ChatMessage]
_CHAT_ADAPTER: TypeAdapter[ChatHistory] = TypeAdapter(ChatHistory)
# Built once: building an adapter costs more than reading a status, and a listing reads hundreds.
_STATUS_ADAPTER: TypeAdapter[Status] = TypeAdapter(Status)
_POLISH_ADAPTER: TypeAdapter[PolishState] = TypeAdapter(PolishState)

M = TypeVar("M", bound=BaseModel | list[ChatMessage])


def read_status(project_dir: Path) -> Status:
    """`status.json`, or `StateFileError` naming the file and what is wrong."""
    return _read(project_dir / STATUS_FILE, _STATUS_ADAPTER)


def write_status(project_dir: Path, status: Status) -> None:
    """Replace `status.json` atomically; on a full disk, in the room kept for it (a halt must be
    recorded when nothing else can be)."""
    text = status.model_dump_json(indent=2) + "\n"
    write_text_atomic(project_dir / STATUS_FILE, text, reserved=True)


def read_polish_state(project_dir: Path) -> PolishState:
    """`polish_state.json`, or `StateFileError` naming the file and what is wrong."""
    return _read(project_dir / POLISH_STATE_FILE, _POLISH_ADAPTER)


def write_polish_state(project_dir: Path, state: PolishState) -> None:
    """Replace `polish_state.json` atomically."""
    write_text_atomic(project_dir / POLISH_STATE_FILE, state.model_dump_json(indent=2) + "\n")


def read_chat(project_dir: Path) -> ChatHistory:
    """`chat_history.json`, or `StateFileError` naming the file and what is wrong."""
    return _read(project_dir / CHAT_HISTORY_FILE, _CHAT_ADAPTER)


def write_chat(project_dir: Path, history: ChatHistory, *, reserved: bool = False) -> None:
    """Replace `chat_history.json` atomically (to clear it between phases); `reserved` as in
    `write_text_atomic`."""
    write_text_atomic(project_dir / CHAT_HISTORY_FILE, _chat_json(history), reserved=reserved)


def _chat_json(history: ChatHistory) -> str:
    """A message nobody has read yet is written without `read_by`, as before the field existed."""
    return _CHAT_ADAPTER.dump_json(history, indent=2, exclude_none=True).decode() + "\n"


def append_chat(project_dir: Path, message: ChatMessage, *, reserved: bool = False) -> ChatHistory:
    """Append one message. Writers of one project (a run, `say` from two terminals) take turns
    on a lock, so a message written meanwhile is never overwritten. `reserved`: the message that
    tells a halt, which a full disk must not keep from the person."""
    with _locked(project_dir / STATE_LOCK_FILE):
        history = read_chat(project_dir)
        history.append(message)
        write_chat(project_dir, history, reserved=reserved)
    return history


def mark_read(project_dir: Path, messages: list[ChatMessage], by: str) -> None:
    """Mark `messages` (as they were read from the chat) read `by` a step, under the writers'
    lock; one marked already keeps its first mark."""
    if not messages:
        return
    with _locked(project_dir / STATE_LOCK_FILE):
        history = read_chat(project_dir)
        marked = [
            m.model_copy(update={"read_by": by}) if m.read_by is None and m in messages else m
            for m in history
        ]
        write_chat(project_dir, marked)


def clear_chat(project_dir: Path) -> None:
    """Start the next phase's conversation. The agent is given only `chat_history.json`, which is
    emptied; its messages move to `chat_archive.json`, so the thread the person reads keeps every
    phase. The move is two writes and idempotent by message identity: a crash between them leaves
    messages in both files, which the thread shows once, the next run start drops from the history
    (`check_state_files`), and the next call never archives twice, whatever was said meanwhile."""
    with _locked(project_dir / STATE_LOCK_FILE):
        archive = _read_archive(project_dir)
        unarchived = _not_in(read_chat(project_dir), archive)
        if unarchived:
            write_text_atomic(project_dir / CHAT_ARCHIVE_FILE, _chat_json(archive + unarchived))
        write_chat(project_dir, [])


def read_thread(project_dir: Path) -> ChatHistory:
    """Every message of the project, earlier phases' first, each once: what the person reads."""
    archive = _read_archive(project_dir)
    return archive + _not_in(read_chat(project_dir), archive)


def _finish_archiving(project_dir: Path) -> None:
    """Drop from the history the messages a crashed `clear_chat` archived already."""
    if not (project_dir / CHAT_ARCHIVE_FILE).exists():
        return
    with _locked(project_dir / STATE_LOCK_FILE):
        history = read_chat(project_dir)
        left = _not_in(history, _read_archive(project_dir))
        if len(left) != len(history):
            write_chat(project_dir, left)


def _identity(message: ChatMessage) -> tuple[str, Phase, datetime, str]:
    """Who said what, when, in which phase: not whether it was read, which changes."""
    return (message.role, message.phase, message.timestamp, message.content)


def _not_in(messages: ChatHistory, archive: ChatHistory) -> ChatHistory:
    archived = {_identity(m) for m in archive}
    return [m for m in messages if _identity(m) not in archived]


def _read_archive(project_dir: Path) -> ChatHistory:
    if not (project_dir / CHAT_ARCHIVE_FILE).exists():
        return []
    return _read(project_dir / CHAT_ARCHIVE_FILE, _CHAT_ADAPTER)


def state_lock(project_dir: Path) -> AbstractContextManager[None]:
    """The lock the writers of a project's shared state files take turns on."""
    return _locked(project_dir / STATE_LOCK_FILE)


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    try:
        handle = open_own(path, "a")
    except ProjectFileError:
        raise
    except OSError as exc:
        raise unwritable(path, exc) from None
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def read_state_file(project_dir: Path, name: str, model: type[M]) -> M:
    """A plugin's own state file (such as `code_build.json`), or `StateFileError`."""
    return _read(project_dir / name, TypeAdapter(model))


def write_state_file(project_dir: Path, name: str, state: BaseModel) -> None:
    """Replace a plugin's own state file atomically."""
    write_text_atomic(project_dir / name, state.model_dump_json(indent=2) + "\n")


def check_state_files(project_dir: Path) -> None:
    """Read every state file once, so a corrupt one stops a run before it does any work; and
    finish an archiving a crash interrupted."""
    read_status(project_dir)
    read_chat(project_dir)
    _finish_archiving(project_dir)
    if (project_dir / POLISH_STATE_FILE).exists():
        read_polish_state(project_dir)


def _read(path: Path, adapter: TypeAdapter[M]) -> M:
    try:
        data = read_own_json(path)
    except FileNotFoundError:
        raise StateFileError(path, "file is missing") from None
    except ProjectFileError as exc:
        raise StateFileError(exc.path, exc.reason) from None
    except OSError as exc:
        raise StateFileError(path, f"cannot be read ({exc.strerror or exc})") from None
    except JsonTooDeep as exc:
        raise StateFileError(path, exc.reason) from None
    except ValueError as exc:
        raise StateFileError(path, f"is not valid JSON ({exc})") from None
    try:
        return adapter.validate_python(data)
    except ValidationError as exc:
        raise StateFileError(path, f"does not match the schema ({schema_problems(exc)})") from None
