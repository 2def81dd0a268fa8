"""A file dropped into a project's thread: saved in `resources/`, where the next distillation
reads it, under a safe name, within `resources.max_file_bytes`.

The name is the person's (or a page's) and untrusted: it goes through the connectors' naming rules
(`core.safe_names`: no separators, `..`, control or reserved characters), keeps a
plain suffix, and never replaces a file already there. The file is written only directly inside a
real `resources/` folder: a `resources` that is a symlink (planted by an agent) is refused, and
the new name is taken exclusively (a hard link, which fails on any existing name), so a link
cannot be followed either.

The bytes arrive into a hidden `.upload-<random>.part` in `resources/` (hidden files are never
resources: the distillation does not read it) and take their name only once whole and on disk,
mode 0644. A server killed mid-upload leaves at most that hidden part; the writer holds a lock on
it while it lives, so the next upload to the project removes the parts no one holds. A part is
created as `.upload-<random>.new` and renamed to `.part` only once locked: another upload's
clean-up never sees a part in the instant between its creation and its lock.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from pathlib import Path

from thoughtforge.config import Config
from thoughtforge.core.project import Project
from thoughtforge.core.safe_names import safe_file_name, safe_stem
from thoughtforge.core.staging import UPLOAD_PART_PREFIX as PART_PREFIX
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.phases.chat import notice

PART_SUFFIX = ".part"
NEW_SUFFIX = ".new"
FILE_MODE = 0o644
"""A resource is data: readable, never executable (`agenda.sh` is not a program to run)."""


class UploadRefused(ThoughtForgeError):
    """The file was not saved; the message says why and what to do."""


class PartialUpload:
    """One file being received: `write` its pieces as they come, then `finish` under its name,
    or `abort`. Nothing of it is a resource until `finish`."""

    def __init__(self, config: Config, project: Project, *, limit: int | None = None) -> None:
        self.project = project
        self.limit = config.resources.max_file_bytes if limit is None else limit
        self.size = 0
        folder = project.resources_dir
        if folder.is_symlink() or not folder.is_dir():
            raise UploadRefused(f"{folder} is not a plain folder: nothing was saved there")
        remove_stale_parts(folder)
        fd, name = tempfile.mkstemp(prefix=PART_PREFIX, suffix=NEW_SUFFIX, dir=folder)
        fcntl.flock(fd, fcntl.LOCK_EX)  # held while this process lives: the part is not stale
        self.part = Path(name).with_suffix(PART_SUFFIX)
        Path(name).rename(self.part)  # only now a part the clean-up may look at
        self._file = os.fdopen(fd, "wb")

    def write(self, data: bytes) -> None:
        self.size += len(data)
        if self.size > self.limit:
            self.abort()
            raise UploadRefused(too_large(self.size, self.limit))
        self._file.write(data)

    def finish(self, name: str) -> str:
        """The file under `name` made safe (`name (2)`… when taken); returns the name."""
        self._file.flush()
        os.fsync(self._file.fileno())
        os.fchmod(self._file.fileno(), FILE_MODE)
        try:
            saved = _link_new(self.part, safe_file_name(name))
        finally:
            self.abort()
        _sync_folder(self.part.parent)
        notice(self.project, f"File '{saved}' added to resources/; the next distillation reads it.")
        return saved

    def abort(self) -> None:
        self.part.unlink(missing_ok=True)
        self._file.close()


def save_upload(config: Config, project: Project, name: str, data: bytes) -> str:
    """Save `data` as a resource; returns the name it was saved under."""
    limit = config.resources.max_file_bytes
    if len(data) > limit:
        raise UploadRefused(
            f"'{safe_stem(name)}' is {len(data):,} bytes; resources.max_file_bytes is {limit:,}. "
            "Nothing was saved."
        )
    upload = PartialUpload(config, project)
    try:
        upload.write(data)
    except BaseException:
        upload.abort()
        raise
    return upload.finish(name)


def too_large(size: int, limit: int) -> str:
    return (
        f"The file is over resources.max_file_bytes ({limit:,} bytes; it has at least {size:,}). "
        "Nothing was saved."
    )


def remove_stale_parts(folder: Path) -> None:
    """Remove the `.upload-*.part` files no living upload holds (a server killed mid-upload)."""
    for part in folder.glob(f"{PART_PREFIX}*{PART_SUFFIX}"):
        try:
            fd = os.open(part, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            continue  # an upload in progress
        finally:
            os.close(fd)
        part.unlink(missing_ok=True)


def _link_new(part: Path, name: str) -> str:
    """Give `part` the name (never over an existing one or through a link): `name`,
    `name (2)`, …"""
    stem, dot, suffix = name.rpartition(".")
    if not dot:
        stem, suffix = name, ""
    for number in range(1, 1000):
        candidate = name if number == 1 else f"{stem} ({number}){dot}{suffix}"
        try:
            os.link(part, part.parent / candidate, follow_symlinks=False)
        except FileExistsError:
            continue
        return candidate
    raise UploadRefused(f"resources/ already holds 999 files named like '{name}'")


def _sync_folder(folder: Path) -> None:
    """The new name on disk too, not only the bytes."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
