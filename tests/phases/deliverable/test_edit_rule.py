"""What a fix may change in a document: the rule the fix prompt states is the rule the validator
enforces, and a breach says what broke and what to do instead."""

from __future__ import annotations

import pytest

from tests.polish_setup import PLAN
from thoughtforge.phases.deliverable.edit_rule import CLAUSES, MAY_CHANGE, breach, rule_text
from thoughtforge.prompting import PromptLibrary

SENTENCE_ADDED = PLAN.replace(
    "| Goal 3 | Steps for 3 | Check 3 |\n",
    "| Goal 3 | Steps for 3 | Check 3 |\n\nThe best man holds the budget reserve.\n",
)
EDITS = {
    "sentence-under-a-table": SENTENCE_ADDED,
    "bullet": PLAN.replace("## Section 2\n", "## Section 2\n\n- Book the barn by May.\n"),
    "row": PLAN.replace(
        "| Goal 4 | Steps for 4 | Check 4 |", "| Goal 4 | Steps for 4 | Check 4 |\n| A | B | C |"
    ),
    "sub-heading": PLAN.replace("## Section 5\n", "## Section 5\n\n### Rain\n\nThe barn.\n"),
}


@pytest.mark.parametrize("new", EDITS.values(), ids=EDITS.keys())
def test_any_content_inside_a_section_may_change(new: str) -> None:
    assert breach(PLAN, new) is None


BROKEN = {
    "heading-added": (
        PLAN + "\n## 7. Extras\n\nMore.\n",
        "the answer adds the section(s) ## 7. Extras, which the document does not have; put that "
        "content under an existing section",
    ),
    "heading-dropped": (
        PLAN.replace("## Section 2\n", ""),
        "dropped or reordered the heading(s) ## Section 2; keep every heading as it was",
    ),
    "heading-reworded": (
        PLAN.replace("## Section 2", "## Second section"),
        "dropped or reordered the heading(s) ## Section 2;",
    ),
    "table-to-prose": (
        PLAN.replace(
            "| --- | --- | --- |\n| Goal 5 | Steps for 5 | Check 5 |", "Done as agreed last week."
        ),
        "dropped the table(s) of ## Section 5; keep each table with its header row and columns",
    ),
    "column-added": (
        PLAN.replace("| Check 1 |", "| Check 1 | x |"),
        "row 1 of the table of '## Section 1' has 4 cell(s) where its header has 3; keep each",
    ),
}


@pytest.mark.parametrize(("new", "said"), BROKEN.values(), ids=BROKEN.keys())
def test_the_skeleton_may_not_and_the_breach_says_what_to_do_instead(new: str, said: str) -> None:
    found = breach(PLAN, new)
    assert found is not None and said in found, found


def test_the_fix_prompt_states_the_rule_the_validator_enforces() -> None:
    rendered = PromptLibrary().render(
        "plan-fix", edit_rule=rule_text(), issues="", constraints="", guidance="", plan=PLAN
    )
    assert rule_text() in rendered
    assert all(line in rule_text() for line in (MAY_CHANGE, *(c.states for c in CLAUSES)))
