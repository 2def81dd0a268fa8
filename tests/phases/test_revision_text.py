"""The pure text work of a revision: sections cut byte-exactly, superseded lines kept visible,
the diff, and which plan sections an agent named."""

from __future__ import annotations

import pytest

from thoughtforge.errors import UnusableAnswer
from thoughtforge.phases.revision_text import (
    chosen_sections,
    readable_diff,
    replace_sections,
    split_sections,
    with_superseded,
)

PLAN = (
    "# Plan: Wedding\n\n"
    "## Summary\n\nA plan.  \n\n"
    "## Resources & Budget\n\n| a | b |\n| --- | --- |\n| 15k | x |\n\n"
    "## Risks\n\n```\n## not a heading\n```\nRain.\n"
)


def test_sections_join_back_to_the_document_byte_for_byte() -> None:
    parts = split_sections(PLAN)
    assert "".join(p.text for p in parts) == PLAN
    assert [p.heading for p in parts] == ["", "Summary", "Resources & Budget", "Risks"]


def test_replacing_one_section_keeps_every_other_byte() -> None:
    revised = replace_sections(
        PLAN, {"Resources & Budget": "| a | b |\n| --- | --- |\n| 12k | x |"}
    )
    before, after = split_sections(PLAN), split_sections(revised)
    assert [p.heading for p in after] == [p.heading for p in before]
    for old, new in zip(before, after, strict=True):
        if old.heading == "Resources & Budget":
            assert "12k" in new.text and "15k" not in new.text
        else:
            assert new.text == old.text


def test_what_a_revision_drops_is_kept_under_superseded_with_its_section() -> None:
    before = "# Spec\n\n## Acceptance Criteria\n\n- Budget 15k.\n- Weekly review.\n"
    after = "# Spec\n\n## Acceptance Criteria\n\n- Budget 12k.\n- Weekly review.\n"
    merged = with_superseded(before, after, 2)
    assert merged.startswith(after.rstrip())
    assert "## Superseded" in merged
    assert "### Revision 2\n\n- Acceptance Criteria: Budget 15k." in merged
    assert "Weekly review." not in merged.split("## Superseded")[1]


def test_earlier_superseded_items_stay_when_a_later_revision_adds_its_own() -> None:
    first = with_superseded("## A\n\n- one\n", "## A\n\n- two\n", 2)
    second = with_superseded(first, "## A\n\n- three\n", 3)
    tail = second.split("## Superseded")[1]
    assert "### Revision 2\n\n- A: one" in tail and "### Revision 3\n\n- A: two" in tail
    assert second.count("## Superseded") == 1


def test_a_change_that_drops_nothing_adds_no_superseded_section() -> None:
    text = "## A\n\n- one\n"
    assert with_superseded(text, text + "- two\n", 2) == text + "- two\n"


def test_the_diff_is_empty_for_no_change_and_readable_for_one() -> None:
    assert readable_diff("a\n", "a\n", "docs/spec.md") == ""
    diff = readable_diff("budget 15k\n", "budget 12k\n", "docs/spec.md")
    assert diff.startswith("```diff") and "-budget 15k" in diff and "+budget 12k" in diff


def test_chosen_sections_match_headings_blind_to_case_space_and_ampersand() -> None:
    headings = ["Summary", "Resources & Budget", "Risks"]
    answer = 'Here: {"sections": ["resources and  budget", "risks"]}'
    assert chosen_sections(answer, headings) == ["Resources & Budget", "Risks"]


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ('{"sections": ["Catering"]}', "the sections are: Summary, Risks"),
        ("I would change the budget.", "no JSON object"),
    ],
)
def test_an_unusable_choice_is_refused_with_what_the_plan_has(answer: str, said: str) -> None:
    with pytest.raises(UnusableAnswer, match=said):
        chosen_sections(answer, ["Summary", "Risks"])
