"""Pulled documents as files in `resources/`: one Markdown file per source, named from its title.

A title is whatever a page's author typed, so it is made safe on every OS before it becomes a name:
as every outside name is (`core.safe_names`); and the file is written only if it lands directly
inside `resources/`.

Each file starts with a one-line header naming the source and the time, which is also how a later
pull of the same source finds its file to refresh it instead of writing a copy; another source
with the same title gets `Title (2).md`.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

from thoughtforge.bounded_input import MAX_TEXT_FILE_BYTES, InputRefused, read_capped
from thoughtforge.connectors.document import Document
from thoughtforge.core.atomic_write import write_text_atomic
from thoughtforge.core.safe_names import safe_stem
from thoughtforge.phases.resources import resource_files

HEADER = "> Pulled from {url} by ThoughtForge ({connector}) on {time}.\n\n"
_HEAD_BYTES = 4096
_HEADER = re.compile(r"^> Pulled from (\S+) by ThoughtForge \(")


def pulled_sources(resources_dir: Path) -> dict[str, Path]:
    """The source URL of every file a connector wrote, from its header line."""
    found: dict[str, Path] = {}
    for path in resource_files(resources_dir):
        if path.suffix != ".md":
            continue
        try:
            head = read_capped(path, MAX_TEXT_FILE_BYTES, "resource")[:_HEAD_BYTES]
        except InputRefused:
            continue
        first = head.decode("utf-8", errors="replace").split("\n", 1)[0]
        if match := _HEADER.match(first):
            found.setdefault(match.group(1), path)
    return found


def write_documents(
    resources_dir: Path, connector: str, documents: list[Document], now: datetime
) -> list[Path]:
    """Write each document; a source pulled before is refreshed in place."""
    resources_dir.mkdir(parents=True, exist_ok=True)
    root = resources_dir.resolve()
    existing = pulled_sources(resources_dir)
    written: list[Path] = []
    for document in documents:
        target = existing.get(document.source_url) or _free_path(root, safe_stem(document.title))
        if target.resolve().parent != root:
            raise ValueError(f"refused to write {target}: it is not directly in {root}")
        header = HEADER.format(
            url=document.source_url, connector=connector, time=now.strftime("%Y-%m-%d %H:%M UTC")
        )
        write_text_atomic(target, header + document.text.rstrip() + "\n")
        existing[document.source_url] = target
        written.append(target)
    return written


def _free_path(root: Path, stem: str) -> Path:
    candidate = root / f"{stem}.md"
    number = 2
    while candidate.exists():
        candidate = root / f"{stem} ({number}).md"
        number += 1
    return candidate
