"""The map of criteria to evidence: criteria read as the person numbered them, a plan's rows
matched to them, and the Markdown every reader gets."""

from __future__ import annotations

from thoughtforge.phases.traceability import (
    Criterion,
    Evidence,
    Trace,
    criteria,
    plan_traces,
    render,
    without_evidence,
    without_evidence_reason,
)

CONSTRAINTS = (
    "# Constraints\n\n## Scope\n\n- not a criterion\n\n## Acceptance Criteria\n\n"
    "- The budget stays under 15k\n- A rain plan\n  exists for the ceremony\n- Guests get a menu\n"
)
PLAN = """# Wedding plan

## Budget

| Objective | Plan | Assessment |
| --- | --- | --- |
| Budget stays under 15k | Cap each vendor | Weekly sum under 15k |

## Weather

A rain plan for the ceremony exists: the barn is booked.
"""


def test_criteria_are_the_acceptance_list_numbered_from_one() -> None:
    assert [(c.number, c.text) for c in criteria(CONSTRAINTS)] == [
        (1, "The budget stays under 15k"),
        (2, "A rain plan exists for the ceremony"),
        (3, "Guests get a menu"),
    ]
    assert criteria("# Constraints\n\n## Acceptance Criteria\n\nNone.\n") == []


def test_a_plan_row_or_section_is_the_evidence_of_the_criterion_it_covers() -> None:
    traces = plan_traces(criteria(CONSTRAINTS), PLAN)
    assert [[e.what for e in t.evidence] for t in traces] == [
        ["row “Budget stays under 15k” of section “Budget”"],
        ["section “Weather”"],
        [],
    ]
    assert [t.criterion.number for t in without_evidence(traces)] == [3]


def test_the_document_names_every_criterion_and_says_which_have_no_evidence_that_holds() -> None:
    """A skipped test is no evidence either: it blocks `done` with what it was."""
    traces = [
        Trace(
            criterion=Criterion(number=1, text="add | sub"),
            evidence=[Evidence(what="t.py::test_ac_1_x", result="passed", commit="a" * 40)],
        ),
        Trace(
            criterion=Criterion(number=2, text="mul"),
            evidence=[Evidence(what="t.py::test_ac_2_y", result="skipped")],
        ),
        Trace(criterion=Criterion(number=3, text="div")),
    ]
    text = render("Calc", traces)
    assert "## 1. add \\| sub" in text and "| t.py::test_ac_1_x | passed | aaaaaaaaaaaa |" in text
    assert "Status: does not hold" in text and "Status: no evidence" in text
    reason = without_evidence_reason(without_evidence(traces), "Add a test.")
    assert reason.startswith(
        "2 acceptance criterion(s) have no evidence that holds: #2 “mul” (t.py::test_ac_2_y "
        "skipped); #3 “div” (no evidence). Add a test."
    )
