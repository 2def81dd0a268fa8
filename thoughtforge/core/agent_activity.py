"""The agent call in flight: which step, since when, and what the agent has written so far.

The workbench shows "the AI is working: <step>, 12 s" and the answer as it streams in; both come
from here, because the files are the only thing the page and the run share. A call writes its
record when it starts and removes it when it ends. A run killed mid-call leaves the record behind,
so a reader believes it only while the project's run lock is held (`core.is_running`).

The streamed text is a preview, never the answer: the answer is what the agent layer returns once
the call ends. It is capped at `STREAM_CAP_BYTES`, so an agent that floods costs one bounded file.
Both files sit where the agent can write, so neither is ever opened through a link it planted:
a call starts by removing them, and every open refuses to follow a link.
"""

from __future__ import annotations

import os
from contextlib import suppress
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ValidationError

from thoughtforge.core.atomic_write import unwritable, write_text_atomic
from thoughtforge.core.own_files import read_own_json, read_own_text

ACTIVITY_FILE = ".agent_call.json"
STREAM_FILE = ".agent_stream.txt"
STREAM_CAP_BYTES = 256 * 1024
_NO_LINK = os.O_NOFOLLOW
_READ_CAP = STREAM_CAP_BYTES + 4096
"""What is read back: the cap and the chunk that crossed it; more was not written here."""


class AgentActivity(BaseModel):
    """One call to an agent, as it started."""

    agent: str
    step: str
    phase: str
    attempt: int
    started_at: datetime


def begin_call(project_dir: Path, activity: AgentActivity) -> None:
    """A new call: its record, and an empty stream."""
    end_call(project_dir)
    try:
        os.close(
            os.open(project_dir / STREAM_FILE, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NO_LINK)
        )
    except OSError as exc:
        raise unwritable(project_dir / STREAM_FILE, exc) from None
    write_text_atomic(project_dir / ACTIVITY_FILE, activity.model_dump_json() + "\n")


def stream_output(project_dir: Path, chunk: bytes) -> None:
    """Append what the agent just wrote, while the stream is under its cap."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK | _NO_LINK  # a pipe: refused, not waited on
    # a preview only: the call itself must never fail for it
    with suppress(OSError), os.fdopen(os.open(project_dir / STREAM_FILE, flags), "ab") as stream:
        room = STREAM_CAP_BYTES - stream.seek(0, os.SEEK_END)
        if room > 0:
            stream.write(chunk[:room])


def end_call(project_dir: Path) -> None:
    """The call ended (answered, failed or killed): nothing is in flight. A record that cannot be
    removed (a read-only folder) is left: the project's next write fails and halts the run,
    naming what failed rather than this bookkeeping."""
    for name in (ACTIVITY_FILE, STREAM_FILE):
        with suppress(OSError):
            (project_dir / name).unlink(missing_ok=True)


def call_in_flight(project_dir: Path) -> AgentActivity | None:
    """The recorded call, or None; an unreadable record counts as none."""
    try:
        return AgentActivity.model_validate(read_own_json(project_dir / ACTIVITY_FILE, _READ_CAP))
    except (OSError, ValueError, ValidationError):
        return None


def streamed_text(project_dir: Path) -> str:
    """What the call in flight has written so far (a cut multi-byte character is replaced)."""
    try:
        return read_own_text(project_dir / STREAM_FILE, _READ_CAP, errors="replace")
    except OSError:
        return ""
