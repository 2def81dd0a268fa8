"""The one deliverable check, case by case: what a model's answer does to a plan; the verdict."""

from __future__ import annotations

import pytest

from tests.polish_setup import PLAN
from thoughtforge.phases.deliverable.document_check import check_document
from thoughtforge.phases.deliverable.verdict import Candidate, DeliverableVerdict

FIXED = PLAN.replace("Steps for 2", "Book the caterer by April")


def fix(answer: str, previous: str = PLAN) -> DeliverableVerdict:
    return check_document(Candidate(stage="fix", text=answer, previous=previous))


def test_a_whole_fixed_document_is_accepted_as_it_is() -> None:
    verdict = fix(FIXED)
    assert (verdict.accepted, verdict.document, verdict.stripped) == (True, FIXED.strip(), [])


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        (f"Here is the revised plan:\n\n{FIXED}", "a preamble ('Here is the revised plan:')"),
        (
            f"{FIXED}\nChanges made:\n- Section 2 now names the caterer.\n- Dates added.\n",
            "a note after the document ('Changes made:')",
        ),
        (
            f"{FIXED}\n## Summary of changes\n\nI booked the caterer in Section 2.\n",
            "a note after the document ('## Summary of changes')",
        ),
        (
            f"Sure, here it is.\n\n{FIXED}\nI have updated Section 2. Let me know!\n",
            "a preamble ('Sure, here it is.') and a note after the document ('I have updated",
        ),
    ],
    ids=["preamble", "changelog", "changes-heading", "both"],
)
def test_text_around_the_document_is_stripped_and_named(answer: str, said: str) -> None:
    verdict = fix(answer)
    assert verdict.accepted, verdict.reason
    assert verdict.document == FIXED.strip()
    assert said in verdict.stripped_note


def test_a_note_between_sections_cannot_be_cut_off_and_is_refused() -> None:
    answer = FIXED.replace("## Section 3", "Changes made: the caterer is named.\n\n## Section 3")
    verdict = fix(answer)
    assert (verdict.accepted, verdict.problem) == (False, "outside_text")
    assert "note to the reader inside the document ('Changes made: the caterer" in verdict.reason


def test_a_section_called_notes_that_the_plan_already_had_is_the_plans_own() -> None:
    with_notes = PLAN + "\n## Notes\n\nThe couple prefers June.\n"
    verdict = fix(with_notes.replace("June", "early June"), previous=with_notes)
    assert verdict.accepted and verdict.stripped == [], verdict.reason


TRANSPOSED = PLAN.replace(
    "## Section 5\n\n| Objective | Plan | Assessment |\n| --- | --- | --- |\n"
    "| Goal 5 | Steps for 5 | Check 5 |",
    "## Section 5\n\n| Field | Value |\n| --- | --- |\n| Objective | Goal 5 |\n"
    "| Plan | Steps for 5 |\n| Assessment | Check 5 |",
)


@pytest.mark.parametrize(
    ("answer", "problem", "why"),
    [
        (
            TRANSPOSED,
            "structure",
            "the table of '## Section 5' has the header 'Field | Value' where it had "
            "'Objective | Plan | Assessment'",
        ),
        (
            PLAN.replace("| Check 3 |", "|  |"),
            "unfilled",
            "'## Section 3' holds a cell with no content",
        ),
        (
            PLAN.replace("Check 4", "TBD"),
            "unfilled",
            "'## Section 4' holds a cell with placeholder text 'TBD'",
        ),
        (
            PLAN.replace("Steps for 1", "Steps for 1 | extra"),
            "structure",
            "row 1 of the table of '## Section 1' has 4 cell(s) where its header has 3",
        ),
        (
            FIXED[: FIXED.rindex("Check 5")] + "Che",
            "truncated",
            "the answer is cut off mid-row at its end ('| Goal 5 | Steps for 5 | Che')",
        ),
        (FIXED + "\n" + FIXED, "repeated", "the answer holds the document more than once"),
        (
            (FIXED + "\n" + FIXED)[: (FIXED + "\n" + FIXED).rindex("Check 4") + 3],
            "truncated",
            "cut off",
        ),
        (
            FIXED.replace("## Section 5", "## Section 2\n\nMore.\n\n## Section 5"),
            "repeated",
            "the answer repeats the section(s) ## Section 2",
        ),
        ("", "empty", "holds no document"),
    ],
    ids=[
        "transposed",
        "emptied-cell",
        "tbd",
        "extra-column",
        "cut-mid-row",
        "twice",
        "twice-and-cut",
        "one-section-twice",
        "empty",
    ],
)
def test_a_broken_fix_is_refused_with_its_kind_and_reason(
    answer: str, problem: str, why: str
) -> None:
    verdict = fix(answer)
    assert (verdict.accepted, verdict.problem) == (False, problem), verdict.reason
    assert why in verdict.reason


def test_a_cut_at_88_percent_with_every_heading_present_is_refused() -> None:
    long_plan = PLAN.replace("Check 5", "Check 5 " + "with the planner and the couple " * 8)
    cut = long_plan[: int(0.88 * len(long_plan))]
    assert cut.count("## Section") == 5
    verdict = fix(cut, previous=long_plan)
    assert (verdict.accepted, verdict.problem) == (False, "truncated")


def test_a_document_that_had_an_empty_cell_may_keep_it() -> None:
    """Only what the fix brings is held against it: the person's own gap is not a new one."""
    before = PLAN.replace("| Check 3 |", "|  |")
    assert fix(before.replace("Steps for 1", "Book the barn"), previous=before).accepted


def test_a_section_the_previous_version_lacks_is_refused() -> None:
    extra = (
        "\n## Section 6\n\n| Objective | Plan | Assessment |\n| --- | --- | --- |\n| A | B | C |\n"
    )
    verdict = fix(FIXED + extra)
    assert (verdict.accepted, verdict.problem) == (False, "structure")
    assert "adds the section(s) ## Section 6" in verdict.reason


def test_a_subheading_inside_a_section_is_its_content_not_a_new_section() -> None:
    sub = FIXED.replace(
        "| Goal 1 | Steps for 1 | Check 1 |\n",
        "| Goal 1 | Steps for 1 | Check 1 |\n\n### Suppliers\n\nThe barn and the caterer.\n",
    )
    assert sub != FIXED
    assert fix(sub).accepted


def test_a_row_written_twice_is_refused_unless_the_previous_version_had_it_twice() -> None:
    row = "| Goal 1 | Steps for 1 | Check 1 |\n"
    verdict = fix(FIXED.replace(row, row * 2))
    assert (verdict.accepted, verdict.problem) == (False, "repeated")
    assert "'## Section 1' holds the row '| Goal 1 | Steps for 1 | Check 1 |' twice" in (
        verdict.reason
    )
    doubled = PLAN.replace(row, row * 2)
    assert fix(doubled.replace("Steps for 2", "Book it"), previous=doubled).accepted


def test_a_table_left_with_its_header_row_and_no_row_is_refused() -> None:
    verdict = fix(FIXED.replace("| Goal 1 | Steps for 1 | Check 1 |\n", ""))
    assert (verdict.accepted, verdict.problem) == (False, "unfilled")
    assert "'## Section 1' holds a table with its header row and no row" in verdict.reason


@pytest.mark.parametrize(
    ("cell", "said"),
    [
        ("Lorem ipsum dolor sit amet", "placeholder text 'Lorem ipsum'"),
        ("see above", "a pointer to another cell ('see above')"),
        ("Same as above.", "a pointer to another cell ('Same as above.')"),
        ("Ditto", "a pointer to another cell ('Ditto')"),
    ],
)
def test_a_cell_of_filler_or_a_pointer_to_another_cell_is_refused(cell: str, said: str) -> None:
    verdict = fix(FIXED.replace("| Check 3 |", f"| {cell} |"))
    assert (verdict.accepted, verdict.problem) == (False, "unfilled")
    assert said in verdict.reason and "Section 3" in verdict.reason


def test_a_cell_that_refers_to_another_and_says_more_is_content() -> None:
    answer = FIXED.replace("| Check 3 |", "| Same caterer as above, plus a tent |")
    assert fix(answer).accepted
