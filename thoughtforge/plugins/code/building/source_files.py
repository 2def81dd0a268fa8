"""What counts as the code a build made, for Phase 3's completeness check."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from thoughtforge.core import git_repo
from thoughtforge.core.staging import SOURCE_SUFFIXES, is_own


def source_files(project_dir: Path) -> list[str]:
    """The code the build made: source files git keeps, but not tests and not ThoughtForge's."""
    return [
        relpath
        for relpath in git_repo.listed_files(project_dir)
        if PurePosixPath(relpath).suffix.lower() in SOURCE_SUFFIXES
        and not is_own(relpath)
        and not is_test_path(PurePosixPath(relpath))
    ]


def is_test_path(path: PurePosixPath) -> bool:
    """A test by its place or name, in any language: in a test folder, `test_*`, `*_test`,
    `*.test.*` or `*.spec.*`."""
    name = path.name.lower()
    in_tests = any(part.lower() in _TEST_FOLDERS for part in path.parts[:-1])
    named = name.startswith("test_") or path.stem.lower().endswith(("_test", ".test", ".spec"))
    return in_tests or named


_TEST_FOLDERS = frozenset({"test", "tests", "__tests__", "spec", "specs"})
