"""The one way a name someone else chose (a dropped file's, a page's title, a `--resource` path)
becomes a file name in a project: safe on every OS, so it cannot escape its folder, hide itself,
or upset a shell or git.

No path separators, no `..`, no control, reserved or shell characters, no Windows device names,
no leading dot, at most `MAX_NAME` characters; a plain suffix (`.pdf`, `.md`) is kept,
lower-cased.
"""

from __future__ import annotations

import re
import unicodedata

MAX_NAME = 80
_UNSAFE = re.compile(r'[\x00-\x1f\x7f<>:"/\\|?*$`;&!~()\']+')
"""Separators, control and reserved characters, and what a shell would act on."""
_RESERVED = re.compile(r"^(con|prn|aux|nul|com\d|lpt\d)(\..*)?$", re.IGNORECASE)
_SUFFIX = re.compile(r"^\.[A-Za-z0-9]{1,10}$")


def safe_stem(title: str) -> str:
    """`title` as a file name stem that is safe everywhere; "untitled" when nothing is left."""
    text = unicodedata.normalize("NFC", title)
    text = _UNSAFE.sub(" ", text)
    text = " ".join(text.split()).strip(" .")
    text = text[:MAX_NAME].rstrip(" .")
    if _RESERVED.match(text):
        text = f"_{text}"
    return text or "untitled"


def safe_file_name(name: str) -> str:
    """`name` (a path's last part counts) made safe as a file directly in a folder, its suffix
    kept when plain."""
    base = name.replace("\x00", "").replace("\\", "/").rsplit("/", 1)[-1]
    stem, dot, suffix = base.rpartition(".")
    if not dot or not stem or not _SUFFIX.match(f".{suffix}"):
        stem, suffix = base, ""
    cleaned = safe_stem(stem)
    return f"{cleaned}.{suffix.lower()}" if suffix else cleaned
