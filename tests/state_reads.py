"""Counting the project files a request reads: every read from a project folder goes through
`core.own_files` (a test lists the readers that read none), so wrapping its one opener counts
them all, by file name, in this process."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from thoughtforge.core import own_files
from thoughtforge.core.course_claim import STARTING_FILE
from thoughtforge.core.revisions import REVISIONS_FILE
from thoughtforge.core.run_lock import LOCK_FILE
from thoughtforge.core.state import POLISH_STATE_FILE, STATUS_FILE
from thoughtforge.core.waiting import WAITING_FILE

STATE_FILES = frozenset(
    {STATUS_FILE, WAITING_FILE, STARTING_FILE, LOCK_FILE, REVISIONS_FILE, POLISH_STATE_FILE}
)
"""The files a project's view is read from (`core.project_view`)."""


@contextmanager
def counted_reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """Every project file read inside the block, counted by its name."""
    reads: Counter[str] = Counter()
    opener = own_files.read_regular

    def counting(path: Path, limit: int, what: str, *, follow_links: bool) -> bytes:
        reads[path.name] += 1
        return opener(path, limit, what, follow_links=follow_links)

    with monkeypatch.context() as patch:
        patch.setattr(own_files, "read_regular", counting)
        yield reads


def state_reads(reads: Counter[str]) -> Counter[str]:
    """Only the reads of the files a project's view is made of."""
    return Counter({name: n for name, n in reads.items() if name in STATE_FILES})
