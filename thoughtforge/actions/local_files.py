"""A new project's brain dump and resources given as files on this machine, as MCP's
`create_project` takes them (the page uploads its files instead, `uploading`): read within
their caps, never through a link."""

from __future__ import annotations

import base64
from pathlib import Path

from thoughtforge.actions.starting import DroppedFile
from thoughtforge.bounded_input import read_capped
from thoughtforge.config import Config
from thoughtforge.core.creation import brain_dump_text
from thoughtforge.core.links import refuse_links
from thoughtforge.errors import ThoughtForgeError


def given_brain_dump(text: str, file: str) -> str:
    """The brain dump given as text or as a file (one of the two), not empty."""
    if bool(text.strip()) == bool(file):
        raise ThoughtForgeError("give the brain dump as text or as a file, one of the two")
    brain_dump = brain_dump_text(text, file)
    if not brain_dump.strip():
        raise ThoughtForgeError("the brain dump is empty: say what you want made")
    return brain_dump


def resource_file(config: Config, path: Path) -> DroppedFile:
    """A file given for the project's resources/: a regular file (no link) within the size
    cap, its bytes as read (a dropped file's data is Base64 on the way in, as the page sends
    it: bytes handed over raw would be decoded, and stored garbled or refused)."""
    refuse_links(path)
    data = read_capped(path, config.resources.max_file_bytes, "resource")
    return DroppedFile(name=path.name, data=base64.b64encode(data))
