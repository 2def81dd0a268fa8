"""A plan is done only when every acceptance criterion has a passage the review quoted that
ThoughtForge finds, word for word, in the section named of the plan as it is then.

Each misbehaviour below ended `done` before (the issue's held-out round 4): a thin plan and an
empty review at iteration 1, every slot rewritten as management prose with the review still
calling it clean, a quote the plan does not hold. The honest reviewer's run ends as it did.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.polish_setup import polishing_project, write_script
from thoughtforge.config import Config
from thoughtforge.core.state import read_status
from thoughtforge.models import HaltReason, Phase
from thoughtforge.phases import human_decisions
from thoughtforge.phases.polish.loop import PolishLoop, PolishOutcome

CONSTRAINTS = (
    "## Acceptance Criteria\n\n- The total cost stays under 2,500 EUR\n"
    "- A first-aid tent is staffed all day\n- Every act has a time slot\n"
)
TABLE = "| Objective | Plan | Assessment |\n| --- | --- | --- |\n"
PLAN = (
    "# Village festival\n\n"
    f"## Budget\n\n{TABLE}| Stay under 2,500 EUR | The stage costs 900 EUR, sound 600 EUR and "
    "food 700 EUR: 2,200 EUR in all | The treasurer checks the sum weekly |\n\n"
    f"## Safety\n\n{TABLE}| Nobody goes untreated | A first-aid tent by the gate is staffed by "
    "two Red Cross volunteers from 10:00 to 22:00 | The rota is signed a week before |\n\n"
    f"## Programme\n\n{TABLE}| A full day of music | Band A plays at 14:00, Band B at 16:00, "
    "Band C at 19:00 | Each act confirms its slot in writing |\n"
)
HONEST = [
    {"criterion": 1, "section": "Budget", "quote": "2,200 EUR in all"},
    {
        "criterion": 2,
        "section": "Safety",
        "quote": "A first-aid tent by the gate is staffed by two Red Cross volunteers",
    },
    {"criterion": 3, "section": "Programme", "quote": "Band A plays at 14:00, Band B at 16:00"},
]
CRITICAL = {
    "severity": "critical",
    "description": "The programme does not say when the bands play.",
    "location": "Programme",
    "recommendation": "Give each act a time slot",
}


@pytest.fixture
def run(config: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Any]:
    """Polish a plan with the reviews given by iteration and the fix given."""

    def polish(
        plan: str, reviews: dict[int | str, dict[str, Any]], fix: dict[str, Any] | None = None
    ) -> tuple[Any, PolishOutcome]:
        answers = {k: json.dumps(v) for k, v in reviews.items()}
        path = write_script(tmp_path / "script.yaml", answers, fix)
        monkeypatch.setenv("THOUGHTFORGE_SCRIPT", str(path))
        project = polishing_project(config, plan, CONSTRAINTS)
        return project, PolishLoop(project, config).run()

    return polish


def traceability(project: Any) -> str:
    return str((project.dir / "docs" / "traceability.md").read_text())


def test_an_honest_reviewers_quotes_end_done_and_show_in_the_traceability(
    run: Callable[..., Any],
) -> None:
    project, outcome = run(PLAN, {"default": {"issues": [], "evidence": HONEST}})
    assert (outcome.verdict, outcome.iteration) == ("done", 1), outcome.reason
    trace = traceability(project)
    assert trace.count("Status: holds") == 3
    assert "| section “Safety”: “A first-aid tent by the gate is staffed by two Red Cross" in trace


THIN_PLAN = (
    "# Village festival\n\n"
    f"## Budget\n\n{TABLE}| Budget | Spend less | Check it |\n\n"
    f"## Safety\n\n{TABLE}| First aid | A tent | Fine |\n\n"
    f"## Programme\n\n{TABLE}| Music | Some bands | Good day |\n"
)


def test_a_thin_plan_and_an_empty_review_halt_instead_of_done(
    run: Callable[..., Any],
) -> None:
    """Before: done at iteration 1, the traceability saying "no evidence" for every criterion."""
    project, outcome = run(THIN_PLAN, {"default": {"issues": []}})

    assert (outcome.verdict, outcome.halt_reason) == (
        "halt",
        HaltReason.CRITERION_WITHOUT_EVIDENCE,
    ), outcome.reason
    assert outcome.iteration == 1
    assert outcome.reason.startswith("3 acceptance criterion(s) have no evidence that holds: ")
    for text in ("#1 “The total cost", "#2 “A first-aid tent", "#3 “Every act has a time slot”"):
        assert text in outcome.reason
    assert read_status(project.dir).halt_reason is HaltReason.CRITERION_WITHOUT_EVIDENCE
    assert traceability(project).count("No evidence.") == 3
    assert human_decisions.apply(project, "override").phase is Phase.DONE  # the person's call


PROSE = (
    "# Village festival\n\n"
    f"## Budget\n\n{TABLE}| Financial stewardship | Costs are managed proactively across all "
    "workstreams with stakeholder alignment | Variance is reviewed at governance checkpoints |\n\n"
    f"## Safety\n\n{TABLE}| Duty of care | Wellbeing provisions are coordinated with relevant "
    "partners as appropriate | Assurance is provided through regular touchpoints |\n\n"
    f"## Programme\n\n{TABLE}| Audience engagement | The line-up is curated to maximise value "
    "and deliver a compelling experience | Success is measured against agreed KPIs |\n"
)


def test_every_slot_rewritten_as_prose_leaves_the_old_quotes_unproven_and_halts(
    run: Callable[..., Any],
) -> None:
    """Before: the fix rewrote each slot as management prose, the review called it clean (and
    may repeat its earlier evidence): done at 2 with every criterion "no evidence"."""
    reviews = {
        1: {"issues": [CRITICAL], "evidence": HONEST[:2]},
        "default": {"issues": [], "evidence": HONEST},
    }
    project, outcome = run(PLAN, reviews, {"text": PROSE})

    # Two checks refuse it, whichever comes first: the critical's place was written over with
    # text that names nothing it names (no fix: the silent reviews halt it at 3), and the
    # quotes are no longer in the plan (no evidence, at the done it would have been).
    assert outcome.verdict == "halt", outcome.reason
    assert outcome.halt_reason in (
        HaltReason.CRITERION_WITHOUT_EVIDENCE,
        HaltReason.GUARD_ISSUES_PERSIST,
    ), outcome.reason
    assert (project.dir / "docs" / "plan.md").read_text() == PROSE
    if outcome.halt_reason is HaltReason.CRITERION_WITHOUT_EVIDENCE:
        for number in (1, 2, 3):
            assert f"#{number} “" in outcome.reason
        assert "“2,200 EUR in all”: the quote is not in that section" in outcome.reason
    else:
        assert "replaced its place with text that names nothing it names" in outcome.reason
    assert traceability(project).count("the quote is not in that section") == 3


def test_a_quote_the_plan_does_not_hold_or_holds_elsewhere_is_refused(
    run: Callable[..., Any],
) -> None:
    made_up = {"criterion": 2, "section": "Safety", "quote": "Paramedics staff a tent all day"}
    elsewhere = {**HONEST[2], "section": "Budget"}
    review = {"issues": [], "evidence": [HONEST[0], made_up, elsewhere]}
    project, outcome = run(PLAN, {"default": review})

    assert outcome.halt_reason is HaltReason.CRITERION_WITHOUT_EVIDENCE, outcome.reason
    assert "#1 “" not in outcome.reason
    assert "#2 “A first-aid tent is staffed all day” (section “Safety”: “Paramedics" in (
        outcome.reason
    )
    assert "#3 “Every act has a time slot” (section “Budget”: “Band A plays" in outcome.reason
    trace = traceability(project)
    assert "| section “Budget”: “2,200 EUR in all” | quoted |" in trace
    assert trace.count("Status: holds") == 1


def test_a_fix_after_the_review_that_removes_a_quoted_passage_is_checked_again(
    run: Callable[..., Any],
) -> None:
    """The review's quotes are checked against the plan as the iteration leaves it: a fix made
    after the review (for a small finding) that cuts the staffed tent leaves criterion 2
    without evidence, though the review quoted it."""
    minor = {**CRITICAL, "severity": "minor", "description": "The budget table is terse."}
    cut = PLAN.replace(
        "A first-aid tent by the gate is staffed by two Red Cross volunteers from 10:00 to 22:00",
        "First aid is arranged",
    )
    _, outcome = run(PLAN, {"default": {"issues": [minor], "evidence": HONEST}}, {"text": cut})

    assert (outcome.halt_reason, outcome.iteration) == (
        HaltReason.CRITERION_WITHOUT_EVIDENCE,
        1,
    ), outcome.reason
    assert "#2 “" in outcome.reason and "#1 “" not in outcome.reason


def test_resumed_after_the_person_adds_what_was_missing_the_next_review_ends_done(
    run: Callable[..., Any], config: Config
) -> None:
    """Resume is the way on: the person writes the missing passages, the next review quotes
    them, and the loop ends done at the next iteration."""
    reviews = {1: {"issues": []}, "default": {"issues": [], "evidence": HONEST}}
    project, outcome = run(THIN_PLAN, reviews)
    assert outcome.halt_reason is HaltReason.CRITERION_WITHOUT_EVIDENCE, outcome.reason
    (project.dir / "docs" / "plan.md").write_text(PLAN)

    human_decisions.apply(project, "resume")
    again = PolishLoop(project, config).run()

    assert (again.verdict, again.iteration) == ("done", 2), again.reason
    assert traceability(project).count("Status: holds") == 3
