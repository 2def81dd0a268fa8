"""The codebase: every file git would track in the project that is part of the deliverable,
read as text unless it is binary or too large."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from pydantic import BaseModel

from thoughtforge.core.own_files import read_own_bytes
from thoughtforge.core.staging import PRIVATE_FILES, is_own
from thoughtforge.plugins.code.context.git_commands import git_output, path_names
from thoughtforge.plugins.code.context.rendering import line_count

MAX_FILE_BYTES = 1_000_000
"""A bigger file (a data dump, a bundle) is named with its size but never read."""
SKIPPED_DIRS = frozenset(
    {
        *("node_modules", "__pycache__", ".venv", "venv", ".tox", ".nox"),
        *(".mypy_cache", ".pytest_cache", ".ruff_cache", ".git"),
    }
)
"""Folders that are never the deliverable, skipped even when the project forgot to ignore them."""
_SNIFF_BYTES = 8000  # git's own binary test: a NUL byte in the first 8000 bytes


class CodebaseFile(BaseModel):
    """One file of the codebase, as read."""

    path: str
    size: int
    content: str | None
    """None for a binary or oversized file."""

    @property
    def lines(self) -> int:
        return line_count(self.content or "")


def codebase_files(project_dir: Path) -> list[CodebaseFile]:
    """Every deliverable file, sorted by path; binary and oversized ones without content."""
    files = (read_file(project_dir / path, path) for path in listed_paths(project_dir))
    return [file for file in files if file is not None]


def listed_paths(project_dir: Path) -> list[str]:
    """The deliverable's paths as git sees them: tracked, or untracked and not ignored."""
    listed = git_output(project_dir, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    return sorted({path for path in path_names(listed) if deliverable(path)})


def deliverable(path: str) -> bool:
    """Not ThoughtForge's (own or private), not `.git`, not in a dependency or cache folder."""
    parts = PurePosixPath(path).parts
    if not parts or is_own(path) or path.startswith(PRIVATE_FILES):
        return False
    return not any(part in SKIPPED_DIRS for part in parts)


def read_file(full: Path, path: str) -> CodebaseFile | None:
    """The file's text; None for what is not a regular file (a symlink, a deleted tracked file)."""
    if full.is_symlink() or not full.is_file():
        return None
    try:
        size = full.stat().st_size
        if size > MAX_FILE_BYTES:
            return CodebaseFile(path=path, size=size, content=None)
        data = read_own_bytes(full, MAX_FILE_BYTES)
    except OSError:
        return None
    if b"\0" in data[:_SNIFF_BYTES]:
        return CodebaseFile(path=path, size=len(data), content=None)
    return CodebaseFile(path=path, size=len(data), content=data.decode("utf-8", errors="replace"))
