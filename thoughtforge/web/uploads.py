"""A file dropped into a project's thread: saved in `resources/`, where the next distillation
reads it, under a safe name, within `resources.max_file_bytes`.

The name is the person's (or a page's) and untrusted: it goes through the connectors' naming rules
(`connectors.writing.file_name`: no separators, `..`, control or reserved characters), keeps a
plain suffix, and never replaces a file already there. The file is written only directly inside a
real `resources/` folder: a `resources` that is a symlink (planted by an agent) is refused, and
the new file is created exclusively, so a link cannot be followed either.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from thoughtforge.config import Config
from thoughtforge.connectors.writing import file_name
from thoughtforge.core import Project
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.phases.chat import notice

_SUFFIX = re.compile(r"^\.[A-Za-z0-9]{1,10}$")


class UploadRefused(ThoughtForgeError):
    """The file was not saved; the message says why and what to do."""


def save_upload(config: Config, project: Project, name: str, data: bytes) -> str:
    """Save `data` as a resource; returns the name it was saved under."""
    limit = config.resources.max_file_bytes
    if len(data) > limit:
        raise UploadRefused(
            f"'{file_name(name)}' is {len(data):,} bytes; resources.max_file_bytes is {limit:,}. "
            "Nothing was saved."
        )
    folder = project.resources_dir
    if folder.is_symlink() or not folder.is_dir():
        raise UploadRefused(f"{folder} is not a plain folder: nothing was saved there")
    saved = _write_new(folder, safe_resource_name(name), data)
    notice(project, f"File '{saved}' added to resources/; the next distillation reads it.")
    return saved


def safe_resource_name(name: str) -> str:
    """`name` made safe as a file directly in `resources/`, its suffix kept when plain."""
    base = name.replace("\x00", "").replace("\\", "/").rsplit("/", 1)[-1]
    stem, dot, suffix = base.rpartition(".")
    if not dot or not stem or not _SUFFIX.match(f".{suffix}"):
        stem, suffix = base, ""
    cleaned = file_name(stem)
    return f"{cleaned}.{suffix.lower()}" if suffix else cleaned


def _write_new(folder: Path, name: str, data: bytes) -> str:
    """Create the file (never over an existing one or through a link): `name`, `name (2)`, …"""
    stem, dot, suffix = name.rpartition(".")
    if not dot:
        stem, suffix = name, ""
    for number in range(1, 1000):
        candidate = name if number == 1 else f"{stem} ({number}){dot}{suffix}"
        try:
            fd = os.open(folder / candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW)
        except FileExistsError:
            continue
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
        except BaseException:
            (folder / candidate).unlink(missing_ok=True)
            raise
        return candidate
    raise UploadRefused(f"resources/ already holds 999 files named like '{name}'")
