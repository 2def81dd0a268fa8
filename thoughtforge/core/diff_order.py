"""A diff of a project's files in the order a person reads it: the deliverable first, their other
documents next, ThoughtForge's own bookkeeping (state JSON, logs, dot files) last.

`git diff` lists files by path, so a plan's change came after `build_progress.json` and
`built_from.json`: the thing a person came to see was the last thing on the page.
"""

from __future__ import annotations

import re

from pydantic import BaseModel

from thoughtforge.core.project import PLAN_FILE

_FILE_START = re.compile(r"^diff --git (.*)$", re.MULTILINE)
_PATHS = re.compile(r'^"?a/.*?"? "?b/(.*?)"?$')
"""`a/PATH b/PATH`, each quoted when git escapes its characters: the new path."""
_BOOKKEEPING_TEXT = frozenset({"polish_log.md", "thoughtforge.log"})
_DOCUMENT_FOLDERS = ("docs/", "resources/")


class FileDiff(BaseModel):
    path: str
    text: str
    """The file's part of the diff, from its `diff --git` line (no newline at its end)."""
    bookkeeping: bool


def by_reading_order(diff: str) -> list[FileDiff]:
    """Each file's part of `diff`: the deliverable, then the documents, then bookkeeping (each
    group in path order, as git gave it)."""
    if not diff.strip():
        return []
    starts = [match.start() for match in _FILE_START.finditer(diff)]
    if not starts or starts[0] != 0:
        starts.insert(0, 0)  # text before the first file (none from git): kept, first
    ends = [*starts[1:], len(diff)]
    files = []
    for part in (diff[start:end] for start, end in zip(starts, ends, strict=True)):
        header = _FILE_START.match(part)
        paths = _PATHS.match(header.group(1)) if header else None
        path = paths.group(1) if paths else ""
        text = part.rstrip("\n")
        files.append(FileDiff(path=path, text=text, bookkeeping=_rank(path) == 2))
    return sorted(files, key=lambda file: _rank(file.path))


def _rank(path: str) -> int:
    """0: the deliverable (the plan, or code); 1: the person's documents; 2: bookkeeping."""
    if path == PLAN_FILE:
        return 0
    if path.startswith(".") or (
        "/" not in path and (path.endswith(".json") or path in _BOOKKEEPING_TEXT)
    ):
        return 2
    if path.startswith(_DOCUMENT_FOLDERS):
        return 1
    return 0
