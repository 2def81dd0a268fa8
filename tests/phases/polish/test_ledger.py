"""The ledger of findings: identity across rewordings, the life of a finding, the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from thoughtforge.errors import StateFileError
from thoughtforge.models import Issue, Severity
from thoughtforge.phases.polish.ledger import (
    LEDGER_FILE,
    Ledger,
    after_fix,
    after_resume,
    after_review,
    read_ledger,
    write_ledger,
)
from thoughtforge.phases.polish.review import Dismissal

RAIN = Issue(severity=Severity.CRITICAL, description="No rain plan.", location="Risks")
OWNER = Issue(severity=Severity.MEDIUM, description="Nobody owns the guest list.", location="Team")


def test_a_finding_is_open_addressed_by_a_fix_at_its_place_then_resolved() -> None:
    ledger = after_review(Ledger(), 1, [RAIN, OWNER], [])
    ledger = after_fix(ledger, 1, ["## Risks & Dependencies"])
    assert [(f.id, f.status) for f in ledger.findings] == [("F1", "addressed"), ("F2", "open")]
    ledger = after_review(ledger, 2, [], [])
    rain, owner = ledger.findings
    assert (rain.status, rain.resolved_at, rain.addressed_by) == ("resolved", 2, [1])
    assert (owner.status, owner.silent_since) == ("open", 2), "silence about an unchanged place"
    assert ledger.silent() == [owner]


def test_a_reworded_finding_keeps_its_identity_and_a_relabel_does_not_lower_it() -> None:
    ledger = after_review(Ledger(), 1, [RAIN], [])
    reworded = Issue(
        severity=Severity.MINOR, description="There is no rain plan at all.", location="Risks"
    )
    ledger = after_review(after_fix(ledger, 1, []), 2, [reworded], [])
    [finding] = ledger.findings
    assert (finding.id, finding.severity, finding.description) == (
        "F1",
        Severity.CRITICAL,
        "There is no rain plan at all.",
    )
    assert finding.relabelled == ["iteration 2 called it minor; kept critical"]
    raised = after_review(ledger, 3, [RAIN.model_copy(update={"severity": Severity.CRITICAL})], [])
    assert raised.findings[0].severity is Severity.CRITICAL


def test_a_dismissal_needs_a_reason_and_an_open_finding() -> None:
    ledger = after_review(Ledger(), 1, [RAIN, OWNER], [])
    said = [Dismissal(id="f1", reason="Section 5 has one."), Dismissal(id="F9", reason="x")]
    ledger = after_review(ledger, 2, [OWNER], said)
    rain, owner = ledger.findings
    assert (rain.status, rain.dismissal, rain.dismissed_at) == (
        "dismissed",
        "Section 5 has one.",
        2,
    )
    assert owner.status == "open" and owner.last_reported == 2


def test_a_finding_resolved_last_round_and_reported_again_is_open_again() -> None:
    ledger = after_review(Ledger(), 1, [RAIN], [])
    ledger = after_review(after_fix(ledger, 1, None), 2, [], [])
    assert ledger.findings[0].status == "resolved"
    ledger = after_review(after_fix(ledger, 2, None), 3, [RAIN], [])
    assert [(f.id, f.status, f.found_at) for f in ledger.findings] == [("F1", "open", 1)]


def test_resuming_after_a_halt_counts_silence_afresh() -> None:
    ledger = after_review(after_review(Ledger(), 1, [RAIN], []), 2, [], [])
    assert ledger.findings[0].silent_since == 2
    assert after_resume(ledger).findings[0].silent_since is None


def test_the_file_round_trips_and_a_corrupt_one_is_a_state_file_error(tmp_path: Path) -> None:
    ledger = after_review(Ledger(), 1, [RAIN, OWNER], [])
    write_ledger(tmp_path, ledger)
    assert read_ledger(tmp_path) == Ledger.model_validate(ledger.model_dump())
    (tmp_path / LEDGER_FILE).write_text('{"findings": [{"id": 3}]}')
    with pytest.raises(StateFileError, match="cannot be read"):
        read_ledger(tmp_path)
    assert read_ledger(tmp_path / "nowhere") == Ledger()
