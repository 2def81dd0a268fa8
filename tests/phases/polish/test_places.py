"""Where a finding is: locations compared with each other and with the places a fix changed."""

from __future__ import annotations

import pytest

from thoughtforge.phases.polish.places import at_places, place_words, same_place


@pytest.mark.parametrize(
    ("first", "second", "same"),
    [
        ("Timeline & Milestones", "Timeline", True),
        ("## Section 2", "section 2 table", True),
        ("Section 2", "Section 3", False),
        ("api/users.py:88", "api/users.py:91", True),
        ("client/http.py:120", "client/http.py", True),
        ("api/users.py:88", "api/limits.py:88", False),
        ("", "Risks", True),
        ("Approach", "Resources & Budget", False),
    ],
)
def test_two_locations_agree_when_they_can_name_the_same_place(
    first: str, second: str, same: bool
) -> None:
    assert same_place(first, second) is same


def test_words_that_name_a_kind_of_place_name_no_place() -> None:
    assert place_words("the Assessment column of the table") == frozenset()
    assert place_words("Goals & Scope, row 1") == frozenset({"goals", "scope", "1"})


def test_a_fix_changed_a_place_when_it_changed_its_section() -> None:
    assert at_places("Section 2", ["## Section 2", "## Section 4"])
    assert not at_places("Section 3", ["## Section 2"])
    assert not at_places("Section 3", []), "a refused or unchanged fix changed nothing"
    assert at_places("Section 3", None), "unknown places: any"
    assert at_places("", ["## Section 5"]), "a finding without a place: any change"


def test_a_location_that_names_everywhere_is_addressed_by_any_change() -> None:
    assert at_places("Overall / throughout the plan", ["## Section 5"])


def test_a_location_that_names_no_place_of_the_deliverable_is_addressed_by_any_change() -> None:
    headings = ["# Wedding plan", "## Section 1", "## Section 2"]
    assert at_places("the vendors", ["## Section 2"], headings)
    assert not at_places("Section 1", ["## Section 2"], headings)
