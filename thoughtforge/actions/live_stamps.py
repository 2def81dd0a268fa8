"""What changed since a door last looked, cheaply enough to ask four times a second.

A project's stamp is the size and modification time of the files that change what its page shows;
the inbox's stamp is the same for every project's `status.json` and recorded wait. Equal stamps
mean nothing to send, so an idle page costs a handful of `stat` calls.
"""

from __future__ import annotations

from pathlib import Path

from thoughtforge.config import Config
from thoughtforge.core.agent_activity import ACTIVITY_FILE
from thoughtforge.core.project import VALID_ID, Project
from thoughtforge.core.staging import POLISH_LOG_FILE
from thoughtforge.core.state import (
    BUILD_PROGRESS_FILE,
    CHAT_ARCHIVE_FILE,
    CHAT_HISTORY_FILE,
    POLISH_STATE_FILE,
    STATUS_FILE,
)
from thoughtforge.core.waiting import WAITING_FILE
from thoughtforge.phases.traceability import TRACEABILITY_FILE

Stamp = tuple[tuple[int, int] | None, ...]
PANEL_FILES = (
    CHAT_HISTORY_FILE,
    STATUS_FILE,
    POLISH_STATE_FILE,
    POLISH_LOG_FILE,
    BUILD_PROGRESS_FILE,
    TRACEABILITY_FILE,
)
"""What the deliverable pane shows is read from: the chat holds Phases 1–2's draft."""
STATE_FILES = (STATUS_FILE, WAITING_FILE, ACTIVITY_FILE)
"""What the header, the composer and the work line show is read from."""


def stamp(project_dir: Path, names: tuple[str, ...]) -> Stamp:
    return tuple(_file_stamp(project_dir / name) for name in names)


def chat_stamp(project: Project) -> Stamp:
    """The thread: this phase's chat and the earlier phases' archive."""
    return stamp(project.dir, (CHAT_ARCHIVE_FILE, CHAT_HISTORY_FILE))


def panel_stamp(project: Project) -> Stamp:
    return stamp(project.dir, PANEL_FILES)


def state_stamp(project: Project) -> Stamp:
    return stamp(project.dir, STATE_FILES)


def inbox_stamp(config: Config) -> tuple[tuple[str, Stamp], ...]:
    root = config.projects.directory
    try:
        names = sorted(p.name for p in root.iterdir() if VALID_ID.match(p.name))
    except OSError:
        return ()
    return tuple((name, stamp(root / name, (STATUS_FILE, WAITING_FILE))) for name in names)


def _file_stamp(path: Path) -> tuple[int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size
