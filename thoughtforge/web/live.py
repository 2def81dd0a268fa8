"""What changed since the page last looked, cheaply enough to ask four times a second.

A project's stamp is the size and modification time of the files that change what its page shows;
the inbox's stamp is the same for every project's `status.json` and recorded wait. Equal stamps
mean nothing to send, so an idle page costs a handful of `stat` calls.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel

from thoughtforge.board.words import step_words
from thoughtforge.config import Config
from thoughtforge.core import (
    CHAT_ARCHIVE_FILE,
    CHAT_HISTORY_FILE,
    POLISH_LOG_FILE,
    POLISH_STATE_FILE,
    STATUS_FILE,
    Project,
    is_running,
)
from thoughtforge.core.agent_activity import ACTIVITY_FILE, call_in_flight, streamed_text
from thoughtforge.core.project import VALID_ID
from thoughtforge.core.state import BUILD_PROGRESS_FILE
from thoughtforge.core.waiting import WAITING_FILE
from thoughtforge.phases.traceability import TRACEABILITY_FILE
from thoughtforge.web.thread import render_markdown

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
STREAM_TAIL_CHARS = 4000
"""How much of an answer being written the page shows (its end)."""


def stamp(project_dir: Path, names: tuple[str, ...]) -> Stamp:
    return tuple(_file_stamp(project_dir / name) for name in names)


def chat_stamp(project_dir: Path) -> Stamp:
    """The thread: this phase's chat and the earlier phases' archive."""
    return stamp(project_dir, (CHAT_ARCHIVE_FILE, CHAT_HISTORY_FILE))


def inbox_stamp(config: Config) -> tuple[tuple[str, Stamp], ...]:
    root = config.projects.directory
    try:
        names = sorted(p.name for p in root.iterdir() if VALID_ID.match(p.name))
    except OSError:
        return ()
    return tuple((name, stamp(root / name, (STATUS_FILE, WAITING_FILE))) for name in names)


class WorkLine(BaseModel):
    """What the page shows while a live run calls an agent: "The AI is working: Distilling your
    brain dump, 12 s", and the answer so far, as rendered (inert) Markdown."""

    line: str
    step: str
    answer_html: str


def work_line(project: Project, now: datetime) -> WorkLine | None:
    activity = call_in_flight(project.dir)
    if activity is None or not is_running(project):
        return None
    seconds = max(0, int((now - activity.started_at).total_seconds()))
    attempt = f" (attempt {activity.attempt})" if activity.attempt > 1 else ""
    step = step_words(activity.step)
    streamed = streamed_text(project.dir)[-STREAM_TAIL_CHARS:]
    return WorkLine(
        line=f"The AI is working: {step}{attempt}, {seconds} s",
        step=step,
        answer_html=render_markdown(streamed) if streamed.strip() else "",
    )


def sse(event: str, data: object, event_id: int | None = None) -> str:
    """One Server-Sent Event; the data is JSON on one line."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def _file_stamp(path: Path) -> tuple[int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size
