"""The pure text work of a revision: sections cut byte-exactly, superseded lines kept visible,
what a proposal changes (in words for the chat: a golden file, UPDATE_GOLDEN=1 rewrites it; a
diff for the agent), and which plan sections an agent named."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from thoughtforge.errors import UnusableReply
from thoughtforge.phases.revision_text import (
    changes_for_the_chat,
    chosen_sections,
    readable_diff,
    replace_sections,
    split_sections,
    with_superseded,
)
from thoughtforge.web.thread import render_markdown

GOLDEN = Path(__file__).parent / "golden" / "proposal_changes.txt"
FILLER = " ".join(f"word{n}" for n in range(40))
SPEC_BEFORE = (
    "# Spec\n\n## Summary\n\nA small wedding.\n\n"
    f"## Constraints\n\n- Guests: sixty. {FILLER} The budget is 15k all in.\n"
    "- Venue: the barn.\n\n"
    "## Acceptance Criteria\n\n- Weekly review.\n- Rain plan: none.\n"
)
SPEC_AFTER = (
    "# Spec\n\n## Summary\n\nA small wedding.\n\n"
    f"## Constraints\n\n- Guests: sixty. {FILLER} The budget is 12k all in.\n"
    "- Venue: the barn.\n\n"
    "## Acceptance Criteria\n\n- Weekly review.\n"
    "- Rain plan: <script>alert(1)</script> a marquee [x](javascript:alert(1)).\n"
    "````\n```\n"
)


def test_the_chat_reads_what_a_proposal_changes_in_words_under_each_heading() -> None:
    """Before, the chat showed a line diff: one changed figure in a long line came as two
    near-identical lines to compare by eye."""
    text = changes_for_the_chat(
        [
            ("docs/spec.md", SPEC_BEFORE, SPEC_AFTER),
            ("docs/constraints.md", "## Limits\n\n- none\n", "## Limits\n\n- none\n"),
        ]
    )
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.write_text(text)
    assert text == GOLDEN.read_text()
    assert "[-15k-]{+12k+}" in text and "word20" not in text  # the unchanged middle is cut
    assert "under “Constraints”" in text and "under “Acceptance Criteria”" in text
    assert "constraints.md" not in text  # unchanged: not named
    assert changes_for_the_chat([("docs/spec.md", SPEC_BEFORE, SPEC_BEFORE)]) == ""
    # the text's own backtick runs cannot close the fence: the page shows it all, its words
    # struck and underlined as History shows them (one notation), its tags as text
    html = render_markdown(f"Changes:\n\n{text}")
    assert html.count('<div class="word-diff">') == 1 and "<pre>" not in html
    assert "<script>" not in html and "<a" not in html and "&lt;script&gt;" in html
    assert "<del>15k</del><ins>12k</ins>" in html and "Acceptance Criteria" in html


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
    with pytest.raises(UnusableReply, match=said):
        chosen_sections(answer, ["Summary", "Risks"])
