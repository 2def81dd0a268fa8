"""The finding tracker: identity across rewordings, the life of a finding, the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from thoughtforge.errors import StateFileError
from thoughtforge.models import Issue, Severity
from thoughtforge.phases.polish.finding_tracker import (
    TRACKER_FILE,
    FindingTracker,
    after_fix,
    after_resume,
    after_review,
    read_tracker,
    write_tracker,
)
from thoughtforge.phases.polish.polish_log import finding_state
from thoughtforge.phases.polish.review import CheckedConfirmation, Dismissal

RAIN = Issue(severity=Severity.CRITICAL, description="No rain plan.", location="Risks")
OWNER = Issue(severity=Severity.MEDIUM, description="Nobody owns the guest list.", location="Team")


def test_a_finding_is_open_addressed_by_a_fix_at_its_place_then_resolved() -> None:
    tracker = after_review(FindingTracker(), 1, [RAIN, OWNER], [])
    tracker = after_fix(tracker, 1, ["## Risks & Dependencies"])
    assert [(f.id, f.status) for f in tracker.findings] == [("F1", "addressed"), ("F2", "open")]
    tracker = after_review(tracker, 2, [], [])
    rain, owner = tracker.findings
    assert (rain.status, rain.resolved_at, rain.addressed_by) == ("resolved", 2, [1])
    assert (owner.status, owner.silent_since) == ("open", 2), "silence about an unchanged place"
    assert tracker.silent() == [owner]


def test_a_reworded_finding_keeps_its_identity_and_a_relabel_does_not_lower_it() -> None:
    tracker = after_review(FindingTracker(), 1, [RAIN], [])
    reworded = Issue(
        severity=Severity.MINOR, description="There is no rain plan at all.", location="Risks"
    )
    tracker = after_review(after_fix(tracker, 1, []), 2, [reworded], [])
    [finding] = tracker.findings
    assert (finding.id, finding.severity, finding.description) == (
        "F1",
        Severity.CRITICAL,
        "There is no rain plan at all.",
    )
    assert finding.relabelled == ["iteration 2 called it minor; kept critical"]
    raised = after_review(tracker, 3, [RAIN.model_copy(update={"severity": Severity.CRITICAL})], [])
    assert raised.findings[0].severity is Severity.CRITICAL


def _cites(finding: str, description: str, location: str = "Risks") -> Issue:
    return Issue(
        severity=Severity.MEDIUM, description=description, location=location, finding=finding
    )


def test_an_issue_naming_a_finding_it_was_shown_is_that_finding_in_any_words() -> None:
    """No words of "No rain plan." are left, so only the id the reviewer gives can say so."""
    tracker = after_review(FindingTracker(), 1, [RAIN, OWNER], [])
    cited = _cites(" f1 ", "If the weather turns, the event has nowhere to go.")
    tracker = after_review(after_fix(tracker, 1, []), 2, [cited], [])
    rain, owner = tracker.findings
    assert (rain.id, rain.last_reported, rain.description) == ("F1", 2, cited.description)
    assert rain.severity is Severity.CRITICAL, "the finding keeps its severity"
    assert (owner.status, owner.silent_since) == ("open", 2), "not cited, not reported: silent"


@pytest.mark.parametrize(
    "cited",
    [
        _cites("F1", "The catering contract has no cancellation terms.", location="Budget"),
        _cites("F7", "The catering contract has no cancellation terms."),
        _cites("<the open finding's id it repeats, or empty>", "The catering has no terms."),
    ],
    ids=["another-place", "unknown-id", "the-prompts-example"],
)
def test_a_citation_that_cannot_be_the_finding_is_read_by_its_words(cited: Issue) -> None:
    tracker = after_review(FindingTracker(), 1, [RAIN], [])
    tracker = after_review(after_fix(tracker, 1, []), 2, [cited], [])
    rain, new = tracker.findings
    assert (rain.id, rain.last_reported, rain.silent_since) == ("F1", 1, 2)
    assert (new.id, new.description, new.found_at) == ("F2", cited.description, 2)


def test_a_finding_is_cited_once_and_a_second_citation_is_read_by_its_words() -> None:
    tracker = after_review(FindingTracker(), 1, [RAIN], [])
    first = _cites("F1", "The outdoor ceremony has no shelter if it rains.")
    second = _cites("F1", "No rain plan.")  # its words match F1, which is taken: a new finding
    tracker = after_review(after_fix(tracker, 1, []), 2, [first, second], [])
    assert [(f.id, f.description, f.last_reported) for f in tracker.findings] == [
        ("F1", first.description, 2),
        ("F2", "No rain plan.", 2),
    ]


def test_a_dismissal_needs_a_reason_and_an_open_finding() -> None:
    tracker = after_review(FindingTracker(), 1, [RAIN, OWNER], [])
    said = [
        Dismissal(id="f1", reason="Section 5 has one."),
        Dismissal(id="F9", reason="No such finding here."),
    ]
    tracker = after_review(tracker, 2, [OWNER], said)
    rain, owner = tracker.findings
    assert (rain.status, rain.dismissal, rain.dismissed_at) == (
        "dismissed",
        "Section 5 has one.",
        2,
    )
    assert owner.status == "open" and owner.last_reported == 2


def test_a_finding_resolved_last_round_and_reported_again_is_open_again() -> None:
    tracker = after_review(FindingTracker(), 1, [RAIN], [])
    tracker = after_review(after_fix(tracker, 1, None), 2, [], [])
    assert tracker.findings[0].status == "resolved"
    tracker = after_review(after_fix(tracker, 2, None), 3, [RAIN], [])
    assert [(f.id, f.status, f.found_at) for f in tracker.findings] == [("F1", "open", 1)]


def test_resuming_after_a_halt_counts_silence_afresh() -> None:
    tracker = after_review(after_review(FindingTracker(), 1, [RAIN], []), 2, [], [])
    assert tracker.findings[0].silent_since == 2
    assert after_resume(tracker).findings[0].silent_since is None


def test_the_file_round_trips_and_a_corrupt_one_is_a_state_file_error(tmp_path: Path) -> None:
    tracker = after_review(FindingTracker(), 1, [RAIN, OWNER], [])
    write_tracker(tmp_path, tracker)
    assert read_tracker(tmp_path) == FindingTracker.model_validate(tracker.model_dump())
    (tmp_path / TRACKER_FILE).write_text('{"findings": [{"id": 3}]}')
    with pytest.raises(StateFileError, match="cannot be read"):
        read_tracker(tmp_path)
    assert read_tracker(tmp_path / "nowhere") == FindingTracker()


def test_a_fix_that_puts_a_fixed_place_back_as_it_was_opens_its_finding_again() -> None:
    """Fix 1 changes Section 1 (its finding resolved by review 2); fix 2 puts Section 1 back as
    review 1 read it: the finding is open again, and the log says which fix undid it."""
    budget = Issue(severity=Severity.CRITICAL, description="Over budget", location="Section 1")
    found, fixed, other = {"Section 1": "a1", "Section 2": "b1"}, {"Section 1": "a2"}, "b2"
    tracker = after_review(FindingTracker(), 1, [budget], [])
    tracker = after_fix(tracker, 1, ["Section 1"], None, (found, {**found, **fixed}))
    tracker = after_review(tracker, 2, [], [])
    assert tracker.findings[0].status == "resolved"
    elsewhere = after_fix(
        tracker, 2, ["Section 2"], None, (found | fixed, found | {"Section 2": other})
    )
    assert elsewhere.findings[0].status == "resolved", "another place changed: nothing undone"
    changed_again = after_fix(tracker, 2, ["Section 1"], None, (found | fixed, {"Section 1": "a3"}))
    assert changed_again.findings[0].status == "resolved", "changed again, not put back"
    undone = after_fix(tracker, 2, ["Section 1"], None, (found | fixed, found))
    [finding] = undone.findings
    assert (finding.status, finding.resolved_at, finding.undone_by) == ("open", None, [2])
    assert "put back as it was by fix #2" in finding_state(finding, 3)


def test_one_issue_citing_two_findings_reports_both() -> None:
    """Before, "F1, F2" was read as no id: both were resolved by the fix while the fold stood."""
    tracker = after_fix(after_review(FindingTracker(), 1, [RAIN, OWNER], []), 1, None)
    fold = Issue(
        severity=Severity.CRITICAL,
        description="Neither the rain plan nor the guest list is sorted.",
        location="Risks, Team",
        finding="F1, F2",
    )
    tracker = after_review(tracker, 2, [fold], [])
    assert [(f.id, f.status, f.last_reported) for f in tracker.findings] == [
        ("F1", "open", 2),
        ("F2", "open", 2),
    ]
    assert tracker.findings[1].description == OWNER.description, "kept in its own words"


def test_a_finding_that_names_no_one_place_is_never_opened_again_by_an_untouched_place() -> None:
    """Only a finding whose location names one section can have that section put back: before
    this test, an unlocated finding took the text before the first heading as its place, and
    any later fix that left that text alone opened it again."""
    vague = Issue(severity=Severity.MEDIUM, description="Tone is too casual.", location="")
    first = {"": "title", "Section 1": "a1"}
    tracker = after_review(FindingTracker(), 1, [vague], [])
    tracker = after_fix(tracker, 1, ["Section 1"], None, (first, {"": "title", "Section 1": "a2"}))
    tracker = after_review(tracker, 2, [], [])
    later = after_fix(tracker, 2, ["Section 1"], None, ({"": "title", "Section 1": "a2"}, first))
    assert [(f.status, f.fixed_from) for f in later.findings] == [("resolved", None)]


RAFFLE = Issue(severity=Severity.CRITICAL, description="Nobody holds the raffle money.")
BEFORE = "# Fete\n\n## Risks\n\nRain: the tent.\n\n## Team\n\nAnn runs the stalls.\n"


def confirmed(finding_id: str, quote: str, found: bool = True) -> CheckedConfirmation:
    return CheckedConfirmation(id=finding_id, quote=quote, found=found)


def test_a_finding_without_a_location_closes_on_a_quote_once_the_reviewer_confirms() -> None:
    """A reviewer that confirms anything must confirm a finding with no place, with a quote
    found in the deliverable: silence, or a quote not there, leaves it open (silent)."""
    after = BEFORE + "\nBen holds the raffle money and banks it.\n"
    fixed = after_fix(
        after_review(FindingTracker(), 1, [RAFFLE, RAIN], []),
        1,
        ["## Risks", "## Team"],
        ["## Risks", "## Team"],
        None,
        (BEFORE, after.replace("the tent", "the church hall")),
    )
    assert [f.status for f in fixed.findings] == ["addressed", "addressed"]
    quoted = after_review(fixed, 2, [], [], [confirmed("F1", "Ben holds the raffle money")])
    raffle, rain = quoted.findings
    assert (raffle.status, raffle.resolution, raffle.quote) == (
        "resolved",
        "confirmed",
        "Ben holds the raffle money",
    )
    assert (rain.status, rain.resolution) == ("resolved", "place"), "its place shows the fix"
    assert "review #2 confirmed it, quoting 'Ben holds the raffle money'" in finding_state(
        raffle, 2
    )
    false_quote = after_review(fixed, 2, [], [], [confirmed("F1", "Ben banks it", found=False)])
    assert (false_quote.findings[0].status, false_quote.findings[0].silent_since) == ("open", 2)
    silent = after_review(fixed, 2, [], [], [confirmed("F2", "the church hall")])
    assert silent.findings[0].status == "open", "this reviewer confirms: F1 needed its own"
    legacy = after_review(fixed, 2, [], [])
    assert (legacy.findings[0].status, legacy.findings[0].resolution) == ("resolved", "unplaced")


def test_a_fix_that_deletes_a_findings_text_leaves_it_open_and_says_why() -> None:
    tent = Issue(
        severity=Severity.MEDIUM, description="Rain: the tent is too small.", location="Risks"
    )
    tracker = after_review(FindingTracker(), 1, [tent], [])
    deleted = BEFORE.replace("Rain: the tent.", "Fine.")
    tracker = after_fix(tracker, 1, ["## Risks"], ["## Risks", "## Team"], None, (BEFORE, deleted))
    [finding] = tracker.findings
    assert (finding.status, finding.addressed_by) == ("open", [])
    assert finding.not_shown == ["fix #1 deleted most of what it is about"]
    assert "not resolved: fix #1 deleted most of what it is about" in finding_state(finding, 1)
    tracker = after_review(tracker, 2, [], [], [confirmed("F1", "Ann runs the stalls")])
    assert tracker.findings[0].resolution == "confirmed", "a review shown the change may confirm"
