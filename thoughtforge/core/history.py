"""A project's history, read from its git log: every commit, with the phase ends and polish
iterations named so a person can point at them (`thoughtforge history`, `rollback --to`).

Names: `phase1` (intent locked), `phase2` (spec locked), `phase3` (deliverable built), `phase4`
(done), `polish-N` (the end of polish iteration N); in revision R ≥ 2 they start `rR-`
(`r2-phase3`). Any commit is also named by its id (7 or more hex digits). The latest commit of a
name wins (an iteration recovered after a kill commits again).
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from thoughtforge.core import git_repo
from thoughtforge.core.revisions import REVISION_TAG_PREFIX
from thoughtforge.core.state import CHAT_ARCHIVE_FILE, CHAT_HISTORY_FILE
from thoughtforge.errors import UnknownHistoryItem

Kind = Literal["phase_end", "polish", "commit"]

_PHASE_ENDS: list[tuple[re.Pattern[str], str, str]] = [
    (re.compile(r"^Lock intent\.md$"), "phase1", "Phase 1 end: intent locked"),
    (re.compile(r"^Lock spec\.md and constraints\.md$"), "phase2", "Phase 2 end: spec locked"),
    (re.compile(r"^Phase 3 complete"), "phase3", "Phase 3 end: deliverable built"),
    (re.compile(r"^Done\b"), "phase4", "Phase 4 end: done"),
]
_POLISH_END = re.compile(r"^(?:fix #(\d+):|review #(\d+): no issues$|iteration #(\d+): recovered)")
CHAT_FILES = (CHAT_HISTORY_FILE, CHAT_ARCHIVE_FILE)
_COMMIT_ID = re.compile(r"^[0-9a-f]{7,40}$")


class HistoryItem(BaseModel):
    commit: str
    when: datetime
    subject: str
    revision: int
    kind: Kind
    name: str | None
    """The phase end's or iteration's name; None for any other commit."""
    what: str

    @property
    def short(self) -> str:
        return self.commit[:7]


def classify(subject: str) -> tuple[Kind, str | None, str]:
    """What a commit subject says the commit was: its kind, base name and words."""
    for pattern, name, what in _PHASE_ENDS:
        if pattern.match(subject):
            if name == "phase3" and subject.endswith(" unchanged)"):  # a revision's no-op build
                what = "Phase 3 end: the rebuild changed nothing"
            return "phase_end", name, what
    found = _POLISH_END.match(subject)
    if found:
        number = next(group for group in found.groups() if group)
        return "polish", f"polish-{number}", f"Polish iteration {number} end: {subject}"
    return "commit", None, subject


def named(base: str | None, revision: int) -> str | None:
    if base is None:
        return None
    return base if revision == 1 else f"r{revision}-{base}"


def name_items(
    commits: list[tuple[str, datetime, str]], revision_starts: dict[str, int]
) -> list[HistoryItem]:
    """Oldest first: each commit with its revision (from the commit each revision began at)
    and its name; an earlier commit of the same name keeps only its id."""
    items: list[HistoryItem] = []
    revision = 1
    for commit, when, subject in commits:
        revision = revision_starts.get(commit, revision)
        kind, base, what = classify(subject)
        items.append(
            HistoryItem(
                commit=commit,
                when=when,
                subject=subject,
                revision=revision,
                kind=kind,
                name=named(base, revision),
                what=what,
            )
        )
    seen: set[str] = set()
    for index in range(len(items) - 1, -1, -1):
        name = items[index].name
        if name is None:
            continue
        if name in seen:
            items[index] = items[index].model_copy(update={"name": None})
        seen.add(name)
    return items


def project_history(project_dir: Path) -> list[HistoryItem]:
    """Every commit of the project, oldest first, named where it is a phase end or iteration."""
    return name_items(_commits(project_dir), _revision_starts(project_dir))


def find_item(items: list[HistoryItem], wanted: str) -> HistoryItem:
    """The item `wanted` names (a name or a commit id); else `UnknownHistoryItem` listing the
    valid names."""
    key = wanted.strip()
    for item in items:
        if item.name == key:
            return item
    if _COMMIT_ID.match(key.lower()):
        matches = [item for item in items if item.commit.startswith(key.lower())]
        if len(matches) == 1:
            return matches[0]
    names = [item.name for item in items if item.name]
    listed = ", ".join(names) or "none yet"
    raise UnknownHistoryItem(
        f"'{wanted}' names no point of this project's history. Valid: {listed}, or a commit id "
        "(7+ hex digits) from `thoughtforge history`."
    )


_EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
_NOT_CONTENT = [f":(exclude){name}" for name in (*CHAT_FILES, "status.json", "revisions.json")]


def item_diff(project_dir: Path, items: list[HistoryItem], item: HistoryItem) -> str:
    """What `item`'s commit changed in the deliverable and documents: its parent → it (the
    chat and status left out); "" when nothing."""
    index = items.index(item)
    before = items[index - 1].commit if index else _EMPTY_TREE
    return git_repo.diff_text(project_dir, [before, item.commit], [".", *_NOT_CONTENT])


def restore_diff(project_dir: Path, item: HistoryItem) -> str:
    """What restoring `item` would change: the files as they are now → as they were then."""
    return git_repo.diff_text(project_dir, ["HEAD", item.commit], [".", *_NOT_CONTENT])


def _commits(project_dir: Path) -> list[tuple[str, datetime, str]]:
    records = git_repo.log_records(project_dir, "%H%x00%aI%x00%s")
    return [(commit, datetime.fromisoformat(when), subject) for commit, when, subject in records]


def _revision_starts(project_dir: Path) -> dict[str, int]:
    starts: dict[str, int] = {}
    for tag, commit in git_repo.tags_with_prefix(project_dir, REVISION_TAG_PREFIX).items():
        number = tag.removeprefix(REVISION_TAG_PREFIX)
        if number.isdigit():
            starts[commit] = int(number)
    return starts
