"""The per-project operational log: `thoughtforge.log`, one JSON object per line, for debugging.

Separate from `polish_log.md` (written for the human). Writing it must never break the pipeline,
so a failed write is reported through Python logging and otherwise ignored.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from thoughtforge.bounded_input import parse_json
from thoughtforge.core.own_files import open_own, read_own_bytes
from thoughtforge.core.state import utc_now

LOG_FILE = "thoughtforge.log"

_logger = logging.getLogger("thoughtforge")


def log_event(project_dir: Path, event: str, level: str = "info", **fields: Any) -> None:
    """Append one JSON line to the project's `thoughtforge.log` (and to Python logging)."""
    record = {"ts": utc_now().isoformat(), "level": level, "event": event, **fields}
    getattr(_logger, level if level in {"info", "warning", "error"} else "info")(
        "%s %s", event, fields
    )
    try:
        with open_own(project_dir / LOG_FILE, "a") as log:
            log.write(json.dumps(record, default=str) + "\n")
    except OSError as exc:
        _logger.warning("could not append to %s: %s", project_dir / LOG_FILE, exc)


def read_events(project_dir: Path) -> list[dict[str, Any]]:
    """Every event logged so far, oldest first. Read as untrusted text: lines are split on
    `\\n` only (what `log_event` writes between records), and a line that is no JSON object
    (cut by a crash, edited by hand, not UTF-8) is left out."""
    try:
        lines = read_own_bytes(project_dir / LOG_FILE).split(b"\n")
    except OSError:  # none yet; or a link, a pipe: nothing ThoughtForge logged
        return []
    events = []
    for line in lines:
        try:
            event = parse_json(line.decode("utf-8", errors="replace"), LOG_FILE)
        except ValueError:
            continue
        if isinstance(event, dict):
            events.append(event)
    return events
