"""Room kept in every project for recording a halt when the disk fills up.

A full disk fails whatever write comes next; if that is the halt itself (the chat line, then
`status.json`), the project is left in a phase it is no longer in. So each project keeps
`.space-reserve`, a private file of `RESERVE_BYTES`, made when it is created and again whenever a
run starts. Only the writes that record a halt (its chat line, then `status.json`) give the
reserve back and try once more when they find the disk full: every other write fails, leaving the
reserve for the halt that follows.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

RESERVE_FILE = ".space-reserve"
RESERVE_BYTES = 256 * 1024


def keep_reserve(project_dir: Path) -> None:
    """Make the reserve if it is missing; on a disk already too full for it, go on without."""
    path = project_dir / RESERVE_FILE
    if path.is_file() and path.stat().st_size == RESERVE_BYTES:
        return
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            os.posix_fallocate(fd, 0, RESERVE_BYTES)
        finally:
            os.close(fd)
    except OSError:
        path.unlink(missing_ok=True)


def give_back_reserve(folder: Path, failure: OSError) -> bool:
    """On a full disk, free the reserve kept in `folder`; whether there was one to free."""
    if failure.errno != errno.ENOSPC:
        return False
    path = folder / RESERVE_FILE
    if path.is_symlink() or not path.is_file():
        return False
    path.unlink()
    return True
