"""Crash-safe file replacement: a reader sees the old content or the new, never half of either.

Never through a symbolic link (`core.links`). A write that fails (a full disk, a read-only folder)
leaves the old file as it was and raises `ProjectFileError`: one line naming the path. The
temporary file is named `.<name>.<random>.thoughtforge-tmp` (`is_temporary`): one a kill -9 left
behind is ignored by git and never committed (`core.staging`).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from thoughtforge.core.links import refuse_links
from thoughtforge.core.space_reserve import give_back_reserve
from thoughtforge.errors import ProjectFileError

TEMPORARY_SUFFIX = ".thoughtforge-tmp"
TEMPORARY_PATTERN = f".*{TEMPORARY_SUFFIX}"
"""The temporary files' names, as `.gitignore` matches them in any folder."""


def is_temporary(relpath: str) -> bool:
    """Whether a path is an atomic write's temporary file (one a crash may have left)."""
    name = relpath.rsplit("/", 1)[-1]
    return name.startswith(".") and name.endswith(TEMPORARY_SUFFIX)


def write_text_atomic(path: Path, text: str, *, reserved: bool = False) -> None:
    """Write a temporary file in the same directory, fsync it, then rename it over `path`; with
    `reserved` (the write that records a halt), on a full disk once more after giving back the
    folder's reserve (`core.space_reserve`): any other write that fills the disk fails, so the
    reserve is still there for the halt that follows."""
    refuse_links(path)
    try:
        _replace(path, text)
    except OSError as exc:
        if not reserved or not give_back_reserve(path.parent, exc):
            raise unwritable(path, exc) from None
        try:
            _replace(path, text)
        except OSError as again:
            raise unwritable(path, again) from None


def _replace(path: Path, text: str) -> None:
    fd, tmp_name = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.", suffix=TEMPORARY_SUFFIX
    )
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as tmp:
            tmp.write(text)
            tmp.flush()
            os.fchmod(tmp.fileno(), _mode_for(path))
            os.fsync(tmp.fileno())
        Path(tmp_name).replace(path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise


def unwritable(path: Path, exc: OSError) -> ProjectFileError:
    """A failed write as one line naming the path (`No space left on device`, `Read-only …`)."""
    return ProjectFileError(path, f"cannot be written ({exc.strerror or exc})")


def _mode_for(path: Path) -> int:
    """The file keeps its mode; a new one gets what the user's umask gives (mkstemp's is 0600,
    unreadable to a team sharing the projects folder through a group)."""
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        return 0o666 & ~_umask()


def _umask() -> int:
    """Read from /proc: setting it to learn it would race with threads creating files."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except OSError:
        pass
    return 0o022
