"""A document's sections and tables as the validator and the tracker read them."""

from __future__ import annotations

from tests.polish_setup import PLAN
from thoughtforge.phases.deliverable.markdown_tables import cells, changed_headings, sections


def test_sections_hold_their_tables_with_header_rows_and_cells() -> None:
    found = sections(PLAN)
    assert [s.heading for s in found] == [
        "# Wedding plan",
        *(f"## Section {n}" for n in range(1, 6)),
    ]
    [table] = found[2].tables
    assert table.header == ["Objective", "Plan", "Assessment"]
    assert table.rows == [["Goal 2", "Steps for 2", "Check 2"]]
    assert table.open_rows == [False]


def test_a_row_cut_before_its_closing_pipe_is_open_and_escaped_pipes_are_text() -> None:
    [table] = sections(PLAN[: PLAN.rindex("Check 5")] + "Che")[-1].tables
    assert table.open_rows == [True]
    assert cells(r"| a \| b | c |") == [r"a \| b", "c"]


def test_changed_headings_are_the_sections_a_change_touched() -> None:
    edited = PLAN.replace("Steps for 2", "Book the band").replace("Check 4", "Signed by May")
    assert changed_headings(PLAN, edited) == ["## Section 2", "## Section 4"]
    assert changed_headings(PLAN, PLAN + "\nA closing note.\n") == ["## Section 5"]
    assert changed_headings(PLAN, PLAN) == []
