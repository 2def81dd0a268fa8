"""The fix context: the files a review's issue locations name, and what they name that is not
shown (missing, refused or no path at all)."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel

from thoughtforge.plugins.code.context.codebase import (
    CodebaseFile,
    deliverable,
    listed_paths,
    read_file,
)
from thoughtforge.plugins.code.context.fitting import Fit, fit_largest_first, fit_note
from thoughtforge.plugins.code.context.rendering import fence_for, file_block


class FixContext(BaseModel):
    """The files a review's issues name, for the fixer; each list is in order of first mention."""

    text: str
    files: list[str]
    """Files shown (relative paths inside the project), whole or cut."""
    missing: list[str] = []
    """Paths inside the project that the review names but that do not exist."""
    truncated: list[str] = []
    """Files cut to fit the budget (in `files`, their start shown)."""
    left_out: list[str] = []
    """Files left out for lack of room (not in `files`): the last mentioned go first."""
    refused: list[str] = []
    """Locations naming a path that is not read: outside the project, `.git`, ThoughtForge's own
    files, ignored by git, binary or a directory."""
    ignored: list[str] = []
    """Locations naming no path at all ("general", "error handling")."""


def fix_context(project_dir: Path, locations: list[str], budget_tokens: int) -> FixContext:
    """The files the review's issue `locations` name, largest cut first to fit `budget_tokens`.

    Nothing outside `project_dir` is ever read: the path is resolved (symlinks followed) before
    anything is opened, and must land inside the project on a file of the codebase.
    """
    root = project_dir.resolve()
    listed = set(listed_paths(project_dir))
    found = FixContext(text="", files=[])
    read: dict[str, CodebaseFile | None] = {}
    for location in locations:
        _classify(root, listed, read, location, found)
    files = [file for path in found.files if (file := read[path]) is not None]
    intro = "The files the review names:\n\n" if files else "The review names no file to show.\n"
    fences = [fence_for(f.content or "") for f in files]
    notes = _fix_notes(found)

    def render(texts: list[str | None]) -> str:
        blocks = zip(files, texts, fences, strict=True)
        return intro + "".join(
            file_block(f.path, text, f.lines, fence)
            for f, text, fence in blocks
            if text is not None
        )

    def note(fit: Fit) -> str:
        return notes + fit_note(fit, "each file")

    parts = [(f.path, f.content or "") for f in files]
    fit = fit_largest_first(parts, budget_tokens, render, note)
    found.truncated = [name for name, _ in fit.cut]
    found.left_out = fit.left_out
    found.files = [f.path for f, text in zip(files, fit.texts, strict=True) if text is not None]
    found.text = render(fit.texts) + note(fit)
    return found


def _fix_notes(found: FixContext) -> str:
    notes = ""
    if found.missing:
        notes += (
            "Referenced file not found (named by the review but not present): "
            f"{', '.join(found.missing)}.\n"
        )
    if found.refused:
        notes += (
            "Not read (outside the project, or not part of the code): "
            f"{', '.join(found.refused)}.\n"
        )
    return notes


_STRIP = "`'\"()[]<>{},;"
_PATH_LIKE = re.compile(r"^[\w.\-/~+@]+$")
_SUFFIX = re.compile(r"\.[A-Za-z]\w*$")


def _classify(
    root: Path,
    listed: set[str],
    read: dict[str, CodebaseFile | None],
    location: str,
    found: FixContext,
) -> None:
    """Add what `location` names to `found`: every codebase file it names, or else its first
    path-like word, as missing or refused; prose names nothing."""
    words = [_strip_position(location), *map(_strip_position, re.split(r"[\s,]+", location))]
    words = [word for word in dict.fromkeys(words) if word]
    named = [p for w in words if (p := _inside(root, w)) is not None and p in listed]
    for path in named:
        if path not in read:
            read[path] = read_file(root / path, path)
        file = read[path]
        if file is None or file.content is None:
            _add(found.refused, path)  # binary, oversized, or not a regular file
        else:
            _add(found.files, path)
    if named:
        return
    candidates = [word for word in words if _looks_like_path(word)]
    if not candidates:
        _add(found.ignored, location)
        return
    word = candidates[0]
    inside = _inside(root, word)
    if inside is None or inside == "." or not deliverable(inside):
        _add(found.refused, word)
    elif (root / inside).exists() or (root / inside).is_symlink():
        _add(found.refused, inside)  # a directory, a file git ignores, a link to nowhere
    else:
        _add(found.missing, inside)


def _strip_position(word: str) -> str:
    """`src/app.py:42`, `app.py#L42`, `tests/t.py::test_x`, `` `a.py` `` → the path alone."""
    word = word.strip().strip(_STRIP)
    word = word.split("#", 1)[0].split(":", 1)[0]
    return word.strip().strip(_STRIP).rstrip(".")


def _looks_like_path(word: str) -> bool:
    return bool(_PATH_LIKE.match(word)) and ("/" in word or bool(_SUFFIX.search(word)))


def _inside(root: Path, word: str) -> str | None:
    """`word` as a relative path inside `root` once resolved (symlinks followed), or None."""
    try:
        resolved = (root / word).resolve()
    except (OSError, RuntimeError):
        return None
    if not resolved.is_relative_to(root):
        return None
    return resolved.relative_to(root).as_posix()


def _add(items: list[str], item: str) -> None:
    if item not in items:
        items.append(item)
