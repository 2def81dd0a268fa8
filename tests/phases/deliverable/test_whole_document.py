"""What a fixer's answer must be to replace the document: a whole document of its kind."""

from __future__ import annotations

import difflib

import pytest

from tests.polish_setup import PLAN
from thoughtforge.phases.deliverable.outside_text import unwrap
from thoughtforge.phases.deliverable.whole_document import refusal, refused_source

FIXED = PLAN.replace("Steps for 2", "Book the caterer by April")


@pytest.mark.parametrize(
    "answer",
    [
        f"```markdown\n{FIXED}```",
        f"```md\n{FIXED}\n```\n",
        f"````\n{FIXED}````",
        f"Here is the updated plan:\n\n```markdown\n{FIXED}```\n\nAll issues are addressed.",
        f"~~~\n{FIXED}~~~",
        f"```markdown\n{FIXED}",  # the closing fence cut off
    ],
    ids=["markdown", "md", "four-backticks", "chatter-around", "tildes", "unclosed"],
)
def test_one_fence_around_the_whole_document_is_unwrapped(answer: str) -> None:
    assert unwrap(answer) == FIXED.strip()
    assert refusal(PLAN, unwrap(answer)) is None


def test_a_document_with_code_blocks_of_its_own_is_left_as_it_is() -> None:
    document = PLAN + "\n## Appendix\n\n```\nrsvp --by 2025-05-01\n```\n"
    assert unwrap(document) == document.strip()


DIFF = "".join(
    difflib.unified_diff(
        PLAN.splitlines(True), FIXED.splitlines(True), "a/docs/plan.md", "b/docs/plan.md", n=100
    )
)
ELLIPSIS_AND_REST = (
    PLAN.split("## Section 4")[0]
    + "## Section 4\n\n…\n\n## Section 5\n\n(rest of the plan unchanged)\n"
)
BRACKETED = PLAN.replace("| Goal 3 | Steps for 3 | Check 3 |", "[... unchanged ...]")
REFUSED = {
    "unified-diff": (DIFF, "a diff ('--- a/docs/plan.md')"),
    "hunk-only": ("@@ -3,4 +3,4 @@\n" + PLAN, "a diff ('@@ -3,4 +3,4 @@')"),
    "apply-patch": ("*** Begin Patch\n" + PLAN, "a diff ('*** Begin Patch')"),
    "ellipsis-and-rest": (ELLIPSIS_AND_REST, "left part of the document out"),
    "bracketed": (BRACKETED, "left part of the document out ('[... unchanged ...]')"),
    "empty": ("", "returned nothing"),
    "fragment": ("# Wedding plan\n", "returned 15 chars"),
}


@pytest.mark.parametrize(("answer", "why"), REFUSED.values(), ids=REFUSED.keys())
def test_anything_but_a_whole_document_is_refused_with_its_reason(answer: str, why: str) -> None:
    reason = refusal(PLAN, answer)
    assert reason is not None and why in reason, reason


@pytest.mark.parametrize(
    "kept",
    [
        PLAN.replace("Steps for 1", "Budget stays the same as before: 15k, unchanged since May"),
        PLAN.replace("Check 4", "Check guests ... and then vendors"),
        PLAN + "\n## Risks\n\nWeather (see the rain plan).\n",
    ],
    ids=["prose-saying-unchanged", "ellipsis-in-a-cell", "a-new-section"],
)
def test_a_whole_document_that_merely_mentions_such_words_is_accepted(kept: str) -> None:
    assert refusal(PLAN, kept) is None


def test_markers_the_document_already_had_are_not_held_against_the_fix() -> None:
    old = PLAN + "\n## Notes\n\n[...]\n"
    assert refusal(old, old.replace("Steps for 1", "Book the barn")) is None


def test_a_source_file_a_coder_left_as_a_diff_elided_or_conflicted_is_refused() -> None:
    old = "def add(a, b):\n    return a + b\n"
    assert refused_source(old, "def add(a, b):\n    return a + b  # fixed\n") is None
    assert "diff" in str(refused_source(old, "--- a/calc.py\n+++ b/calc.py\n@@ -1 +1 @@\n"))
    assert "left out" in str(refused_source(old, "# ... rest of the code unchanged ...\n"))
    conflicted = "<<<<<<< HEAD\nx = 1\n=======\nx = 2\n>>>>>>> fix\n"
    assert "conflict" in str(refused_source(old, conflicted))
