"""The agent call in flight: which step, since when, and what the agent has written so far.

The workbench shows "the AI is working: <step>, 12 s" and the answer as it streams in; both come
from here, because the files are the only thing the page and the run share. A call writes its
record when it starts and removes it when it ends. A run killed mid-call leaves the record behind,
so a reader believes it only while the project's run lock is held (`core.is_running`).

The streamed text is a preview, never the answer: the answer is what the agent layer returns once
the call ends. It is capped at `STREAM_CAP_BYTES`, so an agent that floods costs one bounded file.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ValidationError

from thoughtforge.core.atomic_write import write_text_atomic

ACTIVITY_FILE = ".agent_call.json"
STREAM_FILE = ".agent_stream.txt"
STREAM_CAP_BYTES = 256 * 1024


class AgentActivity(BaseModel):
    """One call to an agent, as it started."""

    agent: str
    step: str
    phase: str
    attempt: int
    started_at: datetime


def begin_call(project_dir: Path, activity: AgentActivity) -> None:
    """A new call: its record, and an empty stream."""
    (project_dir / STREAM_FILE).write_bytes(b"")
    write_text_atomic(project_dir / ACTIVITY_FILE, activity.model_dump_json() + "\n")


def stream_output(project_dir: Path, chunk: bytes) -> None:
    """Append what the agent just wrote, while the stream is under its cap."""
    path = project_dir / STREAM_FILE
    try:
        with path.open("ab") as stream:
            room = STREAM_CAP_BYTES - stream.tell()
            if room > 0:
                stream.write(chunk[:room])
    except OSError:
        return  # a preview only: the call itself must never fail for it


def end_call(project_dir: Path) -> None:
    """The call ended (answered, failed or killed): nothing is in flight."""
    for name in (ACTIVITY_FILE, STREAM_FILE):
        (project_dir / name).unlink(missing_ok=True)


def call_in_flight(project_dir: Path) -> AgentActivity | None:
    """The recorded call, or None; an unreadable record counts as none."""
    try:
        return AgentActivity.model_validate(json.loads((project_dir / ACTIVITY_FILE).read_bytes()))
    except (OSError, ValueError, ValidationError):
        return None


def streamed_text(project_dir: Path) -> str:
    """What the call in flight has written so far (a cut multi-byte character is replaced)."""
    try:
        return (project_dir / STREAM_FILE).read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return ""
