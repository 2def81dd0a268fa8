"""History's before/after in words, on a real project's git diff: the plan's changed words marked
and placed (line, heading), long unchanged stretches cut, a rewrite shown as old then new,
bookkeeping named last; the terminal text is a golden file (UPDATE_GOLDEN=1 rewrites it)."""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import BRAIN_DUMP
from thoughtforge.config import Config
from thoughtforge.core.creation import create_project
from thoughtforge.core.git_repo import commit
from thoughtforge.core.history import item_diff, project_history
from thoughtforge.core.project import Project
from thoughtforge.core.word_diff import Piece, as_text, changes_in_words, marked_pieces

GOLDEN = Path(__file__).parent / "golden" / "word_diff.txt"
ROW = (
    "| Stay within budget. | Log each cost as it is spent, against the limits the person set, "
    "with a contingency held back for the surprises a wedding brings. | The person said: "
    "“budget is 15k all in, and that is a hard limit, my partner's parents offered to help but "
    "we'd rather not.” |"
)
BEFORE = (
    "# Plan\n\n## Summary\n\nBudget 15k, first draft.\n\n## Resources & Budget\n\n"
    f"{ROW}\n\n## Risks\n\nRain.\nNo marquee yet.\nThe venue may be booked.\n\n"
    "## Review\n\nAsk the caterer in March about a vegetarian menu for sixty.\n"
)
AFTER = (
    "# Plan\n\n## Summary\n\nBudget 15k, with a <b>10%</b> contingency [red]x[/].\n\n"
    f"## Resources & Budget\n\n{ROW.replace('15k', '12k')}\n\n## Risks\n\nRain.\n"
    "The venue may be booked.\n\n## Review\n\nEverything agreed with the family by June.\n"
)


def _two_commits(config: Config) -> Project:
    project = create_project(config, brain_dump=BRAIN_DUMP)
    plan = project.dir / "docs" / "plan.md"
    plan.parent.mkdir(parents=True, exist_ok=True)
    plan.write_text(BEFORE)
    (project.dir / "build_progress.json").write_text('{"step": 1}\n')
    commit(project.dir, "Phase 3 complete: plan built")
    plan.write_text(AFTER)
    (project.dir / "build_progress.json").write_text('{"step": 2}\n')
    (project.dir / "docs" / "notes.md").write_text("A new note.\n")
    commit(project.dir, "fix #1: docs/plan.md updated")
    return project


def _changes(project: Project) -> str:
    items = project_history(project.dir)
    return item_diff(project.dir, items, items[-1])


def test_the_plans_change_reads_as_words_in_a_terminal(config: Config) -> None:
    text = as_text(changes_in_words(_changes(_two_commits(config))))
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.write_text(text)
    assert text == GOLDEN.read_text()
    assert text.startswith("docs/plan.md — changed in 4 places")
    assert "budget is [-15k-]{+12k+} all in" in text
    assert text.endswith("ThoughtForge's bookkeeping also changed (not shown): build_progress.json")
    assert "@@" not in text and "diff --git" not in text


def test_each_passage_says_where_it_is_and_a_rewrite_reads_old_then_new(config: Config) -> None:
    [plan, notes, kept] = changes_in_words(_changes(_two_commits(config)))
    assert (plan.path, notes.path, kept.path) == ("docs/plan.md", "docs/notes.md", kept.path)
    assert kept.bookkeeping and not plan.bookkeeping and notes.summary == "new file"
    wheres = [passage.where for passage in plan.passages]
    assert wheres == [
        "line 5, under “Summary”",
        "line 9, under “Resources & Budget”",
        "line 14, under “Risks”",
        "line 18, under “Review”",
    ]
    [row] = plan.passages[1].lines
    assert row[0].text.startswith("… ") and len(row[0].text.split()) <= 11, "cut before"
    assert row[1:3] == [Piece(kind="removed", text="15k"), Piece(kind="added", text="12k")]
    assert plan.passages[2].lines == [[Piece(kind="removed", text="No marquee yet.")]]
    review = plan.passages[3].lines
    assert [[p.kind for p in line] for line in review] == [["removed"], ["added"]]


def test_an_empty_diff_says_nothing() -> None:
    assert changes_in_words("") == [] and as_text([]) == ""


def test_a_change_far_below_its_heading_is_placed_under_it(config: Config) -> None:
    """The heading comes from the document, not from the hunk's three lines of context: a line
    deep in Acceptance Criteria is under that heading, not under the section before it."""
    project = create_project(config, brain_dump=BRAIN_DUMP)
    plan = project.dir / "docs" / "plan.md"
    plan.parent.mkdir(parents=True, exist_ok=True)
    criteria = "".join(f"{n}. Criterion {n} holds.\n" for n in range(1, 13))
    plan.write_text(f"# Plan\n\n## Exclusions\n\nNo band.\n\n## Acceptance Criteria\n\n{criteria}")
    commit(project.dir, "Phase 3 complete: plan built")
    plan.write_text(plan.read_text().replace("9. Criterion 9 holds.", "9. Criterion 9 is met."))
    commit(project.dir, "fix #1: docs/plan.md updated")

    [passage] = changes_in_words(_changes(project))[0].passages
    assert passage.where == "line 17, under “Acceptance Criteria”"


def test_a_terminal_line_reads_back_as_its_pieces() -> None:
    """The page renders the chat's `word-diff` block from the marks a terminal shows."""
    pieces = [
        Piece(kind="same", text="The budget is "),
        Piece(kind="removed", text="15k"),
        Piece(kind="added", text="12k"),
        Piece(kind="same", text=" all in."),
    ]
    line = "The budget is [-15k-]{+12k+} all in."
    assert marked_pieces(line) == pieces
    assert marked_pieces("no change at all") == [Piece(kind="same", text="no change at all")]
