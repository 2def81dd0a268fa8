"""One live run per project, and a way to tell whether a run is still alive.

A run holds an exclusive `flock` on `<project>/.run.lock` for as long as its process lives: the
kernel drops it when the process dies, however it dies. So `recover` can tell a crashed run from a
live one without trusting any recorded state, and a second run of the same project is refused.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from thoughtforge.core.atomic_write import unwritable
from thoughtforge.core.course_claim import end_run_claim
from thoughtforge.core.own_files import MAX_MARKER_BYTES, open_own, read_own_text
from thoughtforge.core.processes import end_leftover_processes
from thoughtforge.core.project import Project
from thoughtforge.core.space_reserve import keep_reserve
from thoughtforge.errors import ProjectError, ProjectFileError

LOCK_FILE = ".run.lock"
PROBE_GRACE_SECONDS = 1.0
_RETRY_SECONDS = 0.02
_held_here: set[str] = set()


@contextmanager
def hold_run_lock(project: Project) -> Iterator[None]:
    """Re-entrant within a process, so a pipeline and the phase flows it calls can all hold it."""
    path = project.dir / LOCK_FILE
    if str(path) in _held_here:
        yield
        return
    try:
        handle = open_own(path, "a+")
    except ProjectFileError:
        raise
    except OSError as exc:
        raise unwritable(path, exc) from None
    with handle:
        if not _take(handle, time.monotonic() + PROBE_GRACE_SECONDS):
            holder = lock_holder(path) or "another process"
            raise ProjectError(f"project {project.id} is already being run ({holder})")
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}")
        handle.flush()
        _held_here.add(str(path))
        end_run_claim(project)  # the run asked for has arrived
        end_leftover_processes(project.dir)
        keep_reserve(project.dir)
        try:
            yield
        finally:
            _held_here.discard(str(path))
            fcntl.flock(handle, fcntl.LOCK_UN)


def lock_holder(path: Path) -> str | None:
    """Who the lock file names as its holder (`pid N`), if anything."""
    try:
        return read_own_text(path, MAX_MARKER_BYTES, errors="replace").strip() or None
    except OSError:
        return None


def _take(handle: IO[str], deadline: float) -> bool:
    """The lock, or False once `deadline` passes. `is_running` holds it for an instant when it
    looks, so a run that starts at that instant tries again rather than refuse itself."""
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() > deadline:
                return False
            time.sleep(_RETRY_SECONDS)


def is_running(project: Project) -> bool:
    """Whether a live process holds the project's run lock."""
    path = project.dir / LOCK_FILE
    if not path.exists():
        return False
    try:
        handle = open_own(path, "a+")
    except OSError:
        return False  # no lock file a run could hold (a pipe, a link): none holds it
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
        return False
