"""Every file ThoughtForge reads from a project folder, opened one way.

Anything an agent or another user can write in a project folder is hostile: a FIFO in a state
file's place would hang the reader, a link to `/dev/zero` fill its memory, a link to another
project's claim be believed, 100,000 nested brackets exhaust the parser's stack. So a project's
file is read only when it is a regular file, never through a link (its folder a real one too,
`core.links`), within a cap, and its JSON within `bounded_input.MAX_JSON_DEPTH`. A file that
fails is `ProjectFileError` naming it (an `OSError`, as a failed read always was); a missing one
is `FileNotFoundError`, as before. `tests/core/test_own_files.py` keeps every reader on this.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Any, Literal, TextIO

from thoughtforge.bounded_input import InputRefused, parse_json, read_regular
from thoughtforge.core.links import refuse_links
from thoughtforge.errors import ProjectFileError

MAX_OWN_FILE_BYTES = 64 * 1024 * 1024
"""A state file, a document, a source file of the project: far more than any run writes (the
chat is capped per message, the tracker per finding)."""
MAX_MARKER_BYTES = 64 * 1024
"""A small marker ThoughtForge writes (the claim, the wait, the run lock's holder)."""


def read_own_bytes(path: Path, limit: int = MAX_OWN_FILE_BYTES) -> bytes:
    """The bytes of a project's file: a regular file of at most `limit` bytes, not a link, in a
    folder that is no link; else `ProjectFileError` (`FileNotFoundError` when it is missing)."""
    refuse_links(path)  # says where a link leads; the open below refuses one made since
    try:
        return read_regular(path, limit, "file", follow_links=False)
    except InputRefused as exc:
        raise ProjectFileError(path, exc.reason) from None


def read_own_text(path: Path, limit: int = MAX_OWN_FILE_BYTES, *, errors: str = "strict") -> str:
    """`read_own_bytes` as UTF-8 text (`errors` as for `bytes.decode`)."""
    return read_own_bytes(path, limit).decode("utf-8", errors)


def read_own_json(path: Path, limit: int = MAX_OWN_FILE_BYTES) -> Any:
    """A project's JSON file, parsed: `read_own_bytes`'s errors, or a `ValueError` when it is no
    JSON or nests too deep (`bounded_input.JsonTooDeep`)."""
    return parse_json(read_own_bytes(path, limit), str(path))


def open_own(path: Path, mode: Literal["a", "a+"]) -> TextIO:
    """A project's file for appending (`a`; `a+` to read it too), created when missing: a
    regular file only, never through a link, and a pipe in its place is refused rather than
    waited on (`ProjectFileError`)."""
    refuse_links(path)
    access = os.O_WRONLY if mode == "a" else os.O_RDWR
    flags = access | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags, 0o666)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO):  # a link made since; a pipe nobody reads
            raise ProjectFileError(path, _NOT_REGULAR) from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ProjectFileError(path, _NOT_REGULAR)
    os.set_blocking(fd, True)
    return os.fdopen(fd, mode, encoding="utf-8")


_NOT_REGULAR = "is not a regular file (a link, pipe, device or folder), so it is not used"
