"""A project's history: what each commit subject says, names by revision, finding an item."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from thoughtforge.core.history import (
    classify,
    find_item,
    name_items,
)
from thoughtforge.errors import UnknownHistoryItem

T = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("subject", "kind", "name"),
    [
        ("Lock intent.md", "phase_end", "phase1"),
        ("Lock spec.md and constraints.md", "phase_end", "phase2"),
        ("Phase 3 complete: plan built", "phase_end", "phase3"),
        ("Phase 3 complete: revision 2 rebuilt Summary", "phase_end", "phase3"),
        ("Done", "phase_end", "phase4"),
        ("Done (deliverable accepted as it is)", "phase_end", "phase4"),
        ("fix #3: docs/plan.md updated (10 → 12 chars)", "polish", "polish-3"),
        ("review #2: no issues", "polish", "polish-2"),
        ("iteration #4: recovered after an interruption", "polish", "polish-4"),
        ("review #2: 1 critical", "commit", None),
        ("Create project", "commit", None),
    ],
)
def test_a_commit_subject_says_what_the_commit_was(
    subject: str, kind: str, name: str | None
) -> None:
    assert classify(subject)[:2] == (kind, name)


def test_a_revision_build_that_changed_nothing_says_so_in_the_history() -> None:
    unchanged = classify("Phase 3 complete: revision 3 rebuilt Summary (plan.md unchanged)")
    assert unchanged == ("phase_end", "phase3", "Phase 3 end: the rebuild changed nothing")
    built = classify("Phase 3 complete: revision 2 rebuilt Summary")
    assert built[2] == "Phase 3 end: deliverable built"


def _items() -> list:
    commits = [
        ("a" * 40, T, "Create project"),
        ("b" * 40, T, "Phase 3 complete: plan built"),
        ("c" * 40, T, "review #1: no issues"),
        ("d" * 40, T, "Done"),
        ("e" * 40, T, "Revision 2 begins: budget"),
        ("f" * 40, T, "Phase 3 complete: revision 2 rebuilt Budget"),
        ("1" * 40, T, "iteration #1: recovered after an interruption"),
        ("2" * 40, T, "review #1: no issues"),
    ]
    return name_items(commits, {"e" * 40: 2})


def test_items_of_a_later_revision_are_prefixed_and_the_latest_of_a_name_wins() -> None:
    items = _items()
    assert [i.revision for i in items] == [1, 1, 1, 1, 2, 2, 2, 2]
    assert [i.name for i in items] == [
        None, "phase3", "polish-1", "phase4", None, "r2-phase3", None, "r2-polish-1",
    ]  # fmt: skip


def test_an_item_is_found_by_name_or_commit_prefix_and_an_unknown_one_lists_the_valid() -> None:
    items = _items()
    assert find_item(items, "r2-phase3").commit == "f" * 40
    assert find_item(items, "ddddddd").name == "phase4"
    with pytest.raises(UnknownHistoryItem) as refused:
        find_item(items, "polish-9")
    assert "phase3, polish-1, phase4, r2-phase3, r2-polish-1" in str(refused.value)
