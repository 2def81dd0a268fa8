"""The polish loop's record as data: the trajectory from `polish_state.json`, the findings of
`polish_ledger.json` and the entries of `polish_log.md`, for whatever shows or serves them (the
workbench, an MCP wrapper).

The log is read back in the shape `polish_log` writes it: one `## ` entry per iteration (or
resume), its `### ` parts as lists of lines, and its verdict. Its text is the reviewer's words,
escaped when written; a reader renders it as untrusted text all the same.
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel

from thoughtforge.core.own_files import read_own_text
from thoughtforge.core.staging import POLISH_LOG_FILE
from thoughtforge.core.state import (
    POLISH_STATE_FILE,
    PolishState,
    TrajectoryEntry,
    read_polish_state,
)
from thoughtforge.errors import StateFileError
from thoughtforge.phases.polish.finding_tracker import TRACKER_FILE, FindingTracker, read_tracker

_ITERATION = re.compile(r"Iteration (\d+)\b")
_VERDICT = "**Verdict:**"


class LogEntry(BaseModel):
    """One `## ` entry of the polish log: an iteration, or a resume by the person."""

    title: str
    iteration: int | None
    """None for an entry that is no iteration (a resume)."""
    parts: dict[str, list[str]]
    """Each `### ` part's list items: "Issues found", "Fixes applied", "Guards"."""
    verdict: str
    text: str
    """The entry as written (Markdown)."""

    @property
    def guards(self) -> list[str]:
        return self.parts.get("Guards", [])


class PolishRecord(BaseModel):
    """What the loop has recorded so far; `problems` names a file that could not be read."""

    state: PolishState | None
    log: list[LogEntry]
    log_text: str
    tracker: FindingTracker | None = None
    problems: list[str] = []

    @property
    def trajectory(self) -> list[TrajectoryEntry]:
        return self.state.trajectory if self.state else []

    @property
    def last_iteration(self) -> LogEntry | None:
        return next((entry for entry in reversed(self.log) if entry.iteration), None)


def read_polish_record(project_dir: Path) -> PolishRecord:
    """The record as far as it exists: nothing before the loop's first iteration; a corrupt state
    file or an unreadable log is a problem in the record, never guessed around."""
    problems: list[str] = []
    state = None
    if (project_dir / POLISH_STATE_FILE).exists():
        try:
            state = read_polish_state(project_dir)
        except StateFileError as exc:
            problems.append(str(exc))
    tracker = None
    try:
        tracker = read_tracker(project_dir) if (project_dir / TRACKER_FILE).exists() else None
    except StateFileError as exc:
        problems.append(str(exc))
    text = ""
    if (project_dir / POLISH_LOG_FILE).exists():
        try:
            text = read_own_text(project_dir / POLISH_LOG_FILE)
        except (OSError, UnicodeDecodeError) as exc:
            problems.append(str(exc)[:300])
    return PolishRecord(
        state=state, log=log_entries(text), log_text=text, tracker=tracker, problems=problems
    )


def log_entries(text: str) -> list[LogEntry]:
    """The log's `## ` entries, oldest first."""
    chunks = re.split(r"^(?=## )", text, flags=re.MULTILINE)
    return [_entry(chunk) for chunk in chunks if chunk.startswith("## ")]


def _entry(chunk: str) -> LogEntry:
    title, _, body = chunk.partition("\n")
    title = title.removeprefix("## ").strip()
    parts: dict[str, list[str]] = {}
    current: list[str] | None = None
    verdict = ""
    for line in body.splitlines():
        if line.startswith("### "):
            current = parts.setdefault(line.removeprefix("### ").strip(), [])
        elif line.startswith(_VERDICT):
            verdict, current = line.removeprefix(_VERDICT).strip(), None
        elif current is not None and line.startswith("- "):
            current.append(line.removeprefix("- "))
        elif not line.strip():
            current = None
    found = _ITERATION.match(title)
    return LogEntry(
        title=title,
        iteration=int(found.group(1)) if found else None,
        parts=parts,
        verdict=verdict,
        text=chunk,
    )
