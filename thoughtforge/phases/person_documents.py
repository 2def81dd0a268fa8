"""The person's documents are the person's: `intent.md`, `spec.md` and `constraints.md` change
only through the person (confirm, edit, revise, or a hand edit between steps, which the next step
reads). An agent that edits one while it works has the edit put back before its step is judged
or committed, in every mode and for every plugin, since every agent step runs inside
`PhaseEngine.agent_at_work`.

Taken before each agent step, a snapshot holds the documents as they are then, so a hand edit
made before the step is the person's and is kept; anything different afterwards is the agent's.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from pathlib import Path

from thoughtforge.core.atomic_write import write_text_atomic
from thoughtforge.core.own_files import read_own_text
from thoughtforge.core.project import CONSTRAINTS_FILE, INTENT_FILE, SPEC_FILE

PERSON_DOCUMENTS = (INTENT_FILE, SPEC_FILE, CONSTRAINTS_FILE)

Snapshot = dict[str, str | None]
"""Path → its text (None: no such file) before an agent step."""


def snapshot(project_dir: Path, relpaths: Iterable[str]) -> Snapshot:
    return {relpath: _text(project_dir / relpath) for relpath in relpaths}


def put_back(project_dir: Path, before: Snapshot) -> list[str]:
    """Restore every file that differs from `before`; the paths restored."""
    restored = []
    for relpath, text in before.items():
        path = project_dir / relpath
        if _text(path) == text:
            continue
        if path.is_symlink() or path.is_dir() or text is None:
            _remove(path)
        if text is not None:
            write_text_atomic(path, text)
        restored.append(relpath)
    return restored


def _text(path: Path) -> str | None:
    """The file's text; a link or a folder is never equal to a file or to no file."""
    if path.is_symlink():
        return f"\0link to {path.readlink()}"
    if path.is_dir():
        return "\0folder"
    try:
        return read_own_text(path, errors="replace")
    except OSError:
        return None


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)
