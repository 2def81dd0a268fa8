"""Whether a fix's change of a finding's place shows a fix: deletions, unrelated rewrites and
revision stamps do not; an honest rewrite in the finding's words and an added sentence do."""

from __future__ import annotations

import pytest

from thoughtforge.models import Issue, Severity
from thoughtforge.phases.polish.fix_evidence import FixEvidence, Shown, quoted_in

FETE = """# Summer fete plan

## Programme

| Objective | Plan | Assessment |
| --- | --- | --- |
| Programme | 11:00 opening by the mayor, 11:30 children's races, 13:00 brass band, 14:30 dog show, 16:00 raffle draw | Every slot has a named lead |
| Stalls | Twelve stalls along the green, cake stall by the church | Stalls booked by 1 June |

## Safety

| Objective | Plan | Assessment |
| --- | --- | --- |
| First aid | First-aid tent by the gate, staffed by two St John volunteers | Tent staffed all day |
| Lost children | Meeting point at the information tent | Point signed |
"""  # noqa: E501
SLOTS = (
    "11:00 opening by the mayor, 11:30 children's races, 13:00 brass band, 14:30 dog show, "
    "16:00 raffle draw"
)
TENT_ROW = (
    "| First aid | First-aid tent by the gate, staffed by two St John volunteers "
    "| Tent staffed all day |\n"
)
SPEECHES = Issue(
    severity=Severity.CRITICAL,
    description="The programme has no slot for the speeches, and the band overruns the dog show",
    location="Programme",
    recommendation="Add a 12:30 speeches slot and end the band at 14:00",
)
TENT = Issue(
    severity=Severity.CRITICAL,
    description="The first-aid tent has only two volunteers for 2,000 visitors",
    location="Safety",
    recommendation="Add volunteers to the first-aid tent",
)
RAFFLE = Issue(severity=Severity.MEDIUM, description="Nobody is responsible for the raffle money")
DEADLINE = Issue(
    severity=Severity.MEDIUM,
    description="Stalls are booked too late: the deadline of 1 June is after the flyers print",
    location="Programme",
    recommendation="Book the stalls by 1 May",
)


def how(after: str, issue: Issue, place: str | None) -> Shown:
    return FixEvidence(FETE, after).of(issue, place)


@pytest.mark.parametrize(
    ("after", "issue", "place", "expected"),
    [
        (FETE.replace(SLOTS, "A varied afternoon for all."), SPEECHES, "## Programme", "deleted"),
        (FETE.replace(TENT_ROW, ""), TENT, "## Safety", "deleted"),
        (
            FETE.replace(
                "First-aid tent by the gate, staffed by two St John volunteers",
                "Stakeholder alignment ensured through regular syncs",
            )
            .replace("Tent staffed all day", "KPIs reviewed quarterly")
            .replace("Meeting point at the information tent", "Leverage synergies across teams")
            .replace("Point signed", "Governance framework in place"),
            TENT,
            "## Safety",
            "unrelated",
        ),
        (FETE + "\n_(revised 2026-05-01 10:41)_\n", RAFFLE, None, "marks"),
        (
            FETE.replace("| Lost children |", "_(updated 1 May 2026)_\n\n| Lost children |"),
            TENT,
            "## Safety",
            "marks",
        ),
        (FETE.replace("10:41", "10:42").replace("1 June", "2 June"), TENT, None, "marks"),
    ],
    ids=[
        "row-cut-to-a-sentence",
        "row-deleted",
        "unrelated-prose",
        "stamp",
        "stamp-in-place",
        "dates-only",
    ],
)
def test_a_change_that_shows_no_fix_is_named(
    after: str, issue: Issue, place: str | None, expected: Shown
) -> None:
    assert how(after, issue, place) == expected


@pytest.mark.parametrize(
    ("after", "issue", "place"),
    [
        (
            FETE.replace(
                "First-aid tent by the gate, staffed by two St John volunteers",
                "Six St John volunteers staff the first-aid tent in two shifts, a medic on call",
            ),
            TENT,
            "## Safety",
        ),
        (
            FETE.replace(
                "| Lost children |",
                "Two more volunteers join the first-aid tent from 13:00.\n\n| Lost children |",
            ),
            TENT,
            "## Safety",
        ),
        (
            FETE.replace(SLOTS, SLOTS.replace("13:00 brass band", "12:30 speeches, 13:00 band")),
            SPEECHES,
            "## Programme",
        ),
        (
            FETE.replace("Stalls booked by 1 June", "Stalls booked by 1 May"),
            DEADLINE,
            "## Programme",
        ),
        (
            FETE.replace(TENT_ROW, ""),
            TENT.model_copy(
                update={"description": "The first-aid row duplicates the medical plan: remove it"}
            ),
            "## Safety",
        ),
        (FETE + "\nThe treasurer, Ann Lee, counts and banks the raffle money.\n", RAFFLE, None),
    ],
    ids=[
        "cell-rewritten-in-its-words",
        "sentence-added",
        "slot-added",
        "date-finding-date-fixed",
        "removal-asked-for",
        "unplaced-sentence-added",
    ],
)
def test_an_honest_fix_shows(after: str, issue: Issue, place: str | None) -> None:
    assert how(after, issue, place) == "shows"


def test_a_quote_must_be_words_of_the_document() -> None:
    fixed = FETE.replace("two St John volunteers", "six St John volunteers")
    assert quoted_in("staffed by six St John volunteers", fixed)
    assert quoted_in("| First aid | First-aid tent by the gate, staffed by six", fixed)
    assert quoted_in("First-aid tent ... six St John volunteers", fixed)
    assert not quoted_in("staffed by six St John volunteers", FETE), "not in the document"
    assert not quoted_in("six volunteers", fixed), "too short to show anything"
    assert not quoted_in("revised 2026-05-01 10:41", fixed + "_(revised 2026-05-01 10:41)_")
