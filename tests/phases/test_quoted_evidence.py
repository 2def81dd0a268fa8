"""A reviewer's quote as evidence for a criterion: accepted where an honest reviewer's copy of the
plan's words stands in the section it named (emphasis, pipes, typography and an ellipsis aside),
refused where the words are not there, are somewhere else, or are too few to mean anything."""

from __future__ import annotations

import pytest

from thoughtforge.phases.polish.review import PlanReview
from thoughtforge.phases.quoted_evidence import Quote, criterion_number, refusal
from thoughtforge.phases.traceability import criteria, quoted_traces, render, without_evidence

PLAN = """# Wedding plan

## 1. Budget & Resources

| Objective | Plan | Assessment |
| --- | --- | --- |
| Stay within **2,500 EUR** | Cap each vendor; the caterer gets at most 900 EUR | Weekly sum |

- [ ] Rain jacket

### Contingency

A 10 % reserve is held back for the unexpected — never spent on extras.

## Weather

A rain plan for the ceremony exists: the barn is booked as the fallback.
"""
CONSTRAINTS = (
    "## Acceptance Criteria\n\n- The total stays within 2,500 EUR\n- A rain plan exists\n"
    "- Guests get a menu\n"
)


def quote(text: str, section: str = "Weather", criterion: str = "2") -> Quote:
    return Quote(criterion=criterion, section=section, quote=text)


@pytest.mark.parametrize(
    ("section", "text"),
    [
        ("Weather", "A rain plan for the ceremony exists"),
        ("## Weather", "a rain plan for the ceremony exists: the barn is booked."),
        ("Budget & Resources", "Stay within 2,500 EUR"),  # the ** dropped
        ("1. Budget & Resources", "Stay within 2,500 EUR | Cap each vendor"),  # across cells
        ("budget & resources", "“Cap each vendor; the caterer gets at most 900 EUR”"),
        ("Budget & Resources", "A 10 % reserve is held back ... never spent on extras"),
        ("Budget & Resources", "A 10 % reserve is held back for the unexpected - never spent"),
        ("Section “Weather”", "the barn is booked as the fallback"),
        ("Budget & Resources table, Plan column", "the caterer gets at most 900 EUR"),
        ("Budget & Resources", "Rain jacket"),  # short, but a whole item
    ],
)
def test_an_honest_copy_of_the_words_in_the_section_named_stands(section: str, text: str) -> None:
    assert refusal(quote(text, section), PLAN) is None


@pytest.mark.parametrize(
    ("section", "text", "why"),
    [
        ("Weather", "A marquee is booked for rain", "not in that section"),
        ("Budget & Resources", "A rain plan for the ceremony exists", "not in that section"),
        ("Timeline", "A rain plan for the ceremony exists", "no section “Timeline”"),
        ("Weather", "rain plan", "shorter than 3 words"),
        ("Weather", "plan for the ceremony ... booked ... is", "not in that section"),  # order
        ("Weather", "A rain plan for the ceremony existed", "not in that section"),
        ("Weather", "...", "empty"),
        ("", "A rain plan for the ceremony exists", "no section"),
    ],
)
def test_a_quote_that_is_not_there_or_means_nothing_is_refused(
    section: str, text: str, why: str
) -> None:
    refused = refusal(quote(text, section), PLAN)
    assert refused is not None and why in refused


def test_a_criterion_is_named_by_its_number_or_its_words() -> None:
    numbered = {c.number: c.text for c in criteria(CONSTRAINTS)}
    assert [
        criterion_number(quote("x", criterion=named), numbered)
        for named in ("2", "#2", "AC 2", "criterion 2", "a rain plan exists.", "7", "rain")
    ] == [2, 2, 2, 2, 2, None, None]


def test_each_criterion_holds_only_with_a_checked_quote_and_the_file_shows_why_not() -> None:
    quotes = [
        quote("Stay within 2,500 EUR", "Budget & Resources", "1"),
        quote("The marquee covers the guests in the rain", "Weather", "2"),
    ]
    traces = quoted_traces(criteria(CONSTRAINTS), PLAN, quotes)
    assert [t.status for t in traces] == ["holds", "no evidence", "no evidence"]
    assert [t.criterion.number for t in without_evidence(traces)] == [2, 3]
    text = render("Wedding", traces)
    assert "| section “Budget & Resources”: “Stay within 2,500 EUR” | quoted |" in text
    assert (
        "- section “Weather”: “The marquee covers the guests in the rain”: the quote is not in "
        "that section" in text
    )


def test_a_review_keeps_its_readable_evidence_and_drops_the_rest() -> None:
    """An odd evidence item costs the reviewer that item, never the whole review."""
    review = PlanReview.model_validate(
        {
            "issues": [],
            "evidence": [
                {"criterion": 1, "section": "Weather", "quote": "A rain plan exists"},
                {"criterion": 2, "quote": "no section"},
                "just words",
            ],
        }
    )
    assert review.evidence == [Quote(criterion="1", section="Weather", quote="A rain plan exists")]
    assert PlanReview.model_validate({"issues": [], "evidence": "all met"}).evidence == []
