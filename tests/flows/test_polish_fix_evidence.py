"""Issue 54, items 2 and 7: a fix resolves a finding only when it shows, and a halt names the
guard that applies. Each trajectory runs through the polish flow on a real Prefect server, with
scripted agents (`THOUGHTFORGE_STEP`, `THOUGHTFORGE_ITERATION`).

Before: a fix that cut the programme to one sentence and deleted the first-aid row, one that
rewrote every slot as management prose, and one that only added `_(revised …)_` each ended
`done` at iteration 2, their findings "resolved by a fix"; a reviewer whose labels oscillated
over the same critical findings halted as `guard_fabrication`; one that pinned new findings to
old ids ran to the ceiling, its log saying both "the same findings persist" and "the total fell".
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.flows.test_polish_trajectories import halted, log, subjects
from tests.polish_setup import ECHO_FIX, polishing_project
from thoughtforge.config import load_config
from thoughtforge.core.project import Project
from thoughtforge.flows import polish
from thoughtforge.models import HaltReason
from thoughtforge.phases.polish.finding_tracker import read_tracker
from thoughtforge.phases.polish.loop import PolishOutcome
from thoughtforge.phases.polish.record import log_entries

FETE = """# Summer fete plan

## Section 1

| Objective | Plan | Assessment |
| --- | --- | --- |
| Programme | 11:00 opening by the mayor, 11:30 children's races, 13:00 brass band, 14:30 dog show, 16:00 raffle draw | Every slot has a named lead |
| Stalls | Twelve stalls along the green, cake stall by the church | Stalls booked by 1 June |

## Section 2

| Objective | Plan | Assessment |
| --- | --- | --- |
| First aid | First-aid tent by the gate, staffed by two St John volunteers | Tent staffed all day |
| Lost children | Meeting point at the information tent | Point signed |

## Section 3

| Objective | Plan | Assessment |
| --- | --- | --- |
| Money | Float of 200 GBP in the cash box | Cash counted at close |
| Raffle | Tickets sold all day at 1 GBP | Prizes donated by the shops |
"""  # noqa: E501
SLOTS = (
    "11:00 opening by the mayor, 11:30 children's races, 13:00 brass band, 14:30 dog show, "
    "16:00 raffle draw"
)
TENT_ROW = (
    "| First aid | First-aid tent by the gate, staffed by two St John volunteers "
    "| Tent staffed all day |\n"
)


def issue(severity: str, description: str, location: str = "", **more: str) -> dict[str, str]:
    return {
        "severity": severity,
        "description": description,
        "location": location,
        "recommendation": more.pop("recommendation", "Make it concrete"),
        **more,
    }


SPEECHES = issue(
    "critical",
    "The programme has no slot for the speeches, and the band overruns the dog show",
    "Section 1",
    recommendation="Add a 12:30 speeches slot and end the band at 14:00",
)
TENT = issue(
    "medium",
    "The first-aid tent has only two volunteers for 2,000 visitors",
    "Section 2",
    recommendation="Add volunteers to the first-aid tent",
)
LOST = issue("medium", "The lost-children point is not staffed", "Section 2")
RAFFLE = issue("critical", "Nobody is responsible for the raffle money")
RAIN = issue("critical", "There is no wet-weather plan for the dog show")
FLOAT = issue("medium", "The cash float is too small for change on 1 GBP tickets")
PARKING = issue("medium", "Parking for the stallholders' vans is not arranged")
CLEAN: dict[str, Any] = {"issues": []}
STALLS = "## Acceptance Criteria\n- Twelve stalls line the green\n"
EVIDENCE = [{"criterion": 1, "section": "Section 1", "quote": "Twelve stalls along the green"}]
"""Every review's evidence for `STALLS`, a row no fix here touches (the criterion holds)."""

Run = Callable[..., tuple[Project, PolishOutcome]]


@pytest.fixture
def run(
    tmp_path: Path,
    cli_config: Callable[..., Path],
    prefect_api_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> Run:
    """Polish a fresh project holding `plan` through the flow with these reviews (by iteration:
    review objects) and fixer (a scripted answer)."""

    def polish_with(
        reviews: dict[int | str, dict[str, Any]],
        fix: dict[str, Any],
        plan: str = FETE,
        **limits: int,
    ) -> tuple[Project, PolishOutcome]:
        config_path = cli_config(polish={"max_iterations": 8, **limits})
        project = polishing_project(load_config(config_path), plan=plan, constraints=STALLS)
        answers = {k: {"text": json.dumps({"evidence": EVIDENCE, **v})} for k, v in reviews.items()}
        steps = {"plan-review": {"by_iteration": answers}, "plan-fix": fix}
        script = tmp_path / "script.yaml"
        script.write_text(yaml.safe_dump({"steps": steps}))
        monkeypatch.setenv("THOUGHTFORGE_SCRIPT", str(script))
        outcome = polish.polish_in_process(project.id, config_path, wait_for_human=False)
        return project, outcome

    return polish_with


def statuses(project: Project) -> list[tuple[str, str]]:
    return [(f.id, f.status) for f in read_tracker(project.dir).findings]


# --- item 2: a fix resolves a finding only when it shows -----------------------------------------


def test_a_fix_that_deletes_what_its_findings_are_about_resolves_nothing(run: Run) -> None:
    """The programme cut to one sentence, the first-aid row gone, then clean reviews: the
    findings stay open (the log says why), and two silent reviews halt — never `done`."""
    cut = FETE.replace(SLOTS, "A varied afternoon for all the family.").replace(TENT_ROW, "")
    project, outcome = run({1: {"issues": [SPEECHES, TENT]}, "default": CLEAN}, {"text": cut})
    halted(project, outcome, HaltReason.GUARD_ISSUES_PERSIST, 3)
    assert (project.docs_dir / "plan.md").read_text() == cut, "the fix itself was accepted"
    assert statuses(project) == [("F1", "open"), ("F2", "open")]
    assert "not resolved: fix #1 deleted most of what it is about" in log(project)
    assert "resolved by a fix" not in outcome.reason
    assert "F1" in outcome.reason and "deleted most of what it is about" in outcome.reason


def test_unrelated_prose_in_every_slot_resolves_nothing(run: Run) -> None:
    """Every slot rewritten as plausible management prose naming nothing the findings name: no
    finding is addressed; not `done` at 2 with all five "resolved by a fix"."""
    prose = FETE
    for old, new in [
        (SLOTS, "Deliver a best-in-class attendee journey"),
        ("Every slot has a named lead", "Stakeholders aligned at each gate"),
        ("Twelve stalls along the green, cake stall by the church", "Vendor ecosystem leveraged"),
        ("Stalls booked by 1 June", "KPIs tracked weekly"),
        (
            "First-aid tent by the gate, staffed by two St John volunteers",
            "Risk appetite calibrated",
        ),
        ("Tent staffed all day", "Governance cadence agreed"),
        ("Meeting point at the information tent", "Synergies surfaced across workstreams"),
        ("Point signed", "Escalation paths socialised"),
        ("Float of 200 GBP in the cash box", "Financial controls right-sized"),
        ("Cash counted at close", "Reconciliation embedded in the operating model"),
        ("Tickets sold all day at 1 GBP", "Monetisation levers optimised"),
        ("Prizes donated by the shops", "Partner value propositions activated"),
    ]:
        prose = prose.replace(old, new)
    findings = [
        SPEECHES,
        TENT,
        LOST,
        issue("critical", "The cash float is unsafe", "Section 3"),
        issue("minor", "Raffle prizes are not listed", "Section 3"),
    ]
    project, outcome = run({1: {"issues": findings}, "default": CLEAN}, {"text": prose})
    assert outcome.verdict == "halt", outcome.reason
    assert outcome.halt_reason is HaltReason.GUARD_ISSUES_PERSIST
    assert outcome.iteration == 3
    tracker = read_tracker(project.dir)
    assert not [f.id for f in tracker.findings if f.status == "resolved"]
    assert "replaced its place with text that names nothing it names" in log(project)


def test_a_revision_stamp_resolves_no_finding_without_a_location(run: Run) -> None:
    """Four findings with no location; each fix only adds `_(revised …)_`: not `done` at 2 — the
    stamp shows no fix, the clean reviews confirm nothing, and the loop halts on the evidence."""
    fix = {
        "by_iteration": {
            n: {"text": FETE + f"\n_(revised 2026-05-0{n} 10:4{n})_\n"} for n in range(1, 9)
        }
    }
    findings = [RAFFLE, RAIN, FLOAT, PARKING]
    project, outcome = run({1: {"issues": findings}, "default": CLEAN}, fix)
    halted(project, outcome, HaltReason.GUARD_ISSUES_PERSIST, 3)
    assert all(status == "open" for _, status in statuses(project))
    assert "changed only a date, a time or a revision mark" in log(project)


CONFIRMED_FIX = (
    FETE
    + "\nThe treasurer, Ann Lee, holds the raffle money and banks it at close.\n"
    + "\nIf it rains, the dog show moves to the church hall.\n"
)


def test_a_finding_without_a_location_closes_on_a_review_quoting_what_resolves_it(
    run: Run,
) -> None:
    """Review #2 confirms F1 quoting the plan and F2 quoting words that are not in it: F1 is
    resolved (the log quotes it), F2 stays open; review #3 quotes F2's text: done at 3."""
    second = {
        "issues": [],
        "resolved": [
            {"id": "F1", "quote": "The treasurer, Ann Lee, holds the raffle money"},
            {"id": "F2", "quote": "the dog show moves into the marquee"},
        ],
    }
    third = {"issues": [], "resolved": [{"id": "F2", "quote": "dog show moves to the church hall"}]}
    reviews = {1: {"issues": [RAFFLE, RAIN]}, 2: second, "default": third}
    project, outcome = run(reviews, {"text": CONFIRMED_FIX})
    assert (outcome.verdict, outcome.iteration) == ("done", 3), outcome.reason
    tracker = read_tracker(project.dir)
    assert [(f.id, f.status, f.resolved_at, f.resolution) for f in tracker.findings] == [
        ("F1", "resolved", 2, "confirmed"),
        ("F2", "resolved", 3, "confirmed"),
    ]
    text = log(project)
    assert (
        "review #2 confirmed it, quoting 'The treasurer, Ann Lee, holds the raffle money'" in text
    )
    assert "review #3 confirmed it, quoting 'dog show moves to the church hall'" in text
    assert "2 confirmed resolved by a review quoting the deliverable." in outcome.reason
    prompt = sorted((project.dir / ".scripted-agent" / "prompts").glob("*-plan-review.md"))[1]
    shown = prompt.read_text()
    assert '"id": "F1"' in shown and "What the fix changed since the last review" in shown
    assert "{+The treasurer, Ann Lee, holds the raffle money" in shown


def test_an_honest_sentence_resolves_as_before_for_a_reviewer_that_confirms_nothing(
    run: Run,
) -> None:
    """The same honest fix, reviewed by one that never uses `resolved`: done at 2 as before, the
    log saying why each closed."""
    project, outcome = run(
        {1: {"issues": [RAFFLE, TENT]}, "default": CLEAN},
        {
            "text": CONFIRMED_FIX.replace(
                "two St John volunteers",
                "six St John volunteers in two shifts at the first-aid tent",
            )
        },
    )
    assert (outcome.verdict, outcome.iteration) == ("done", 2), outcome.reason
    assert statuses(project) == [("F1", "resolved"), ("F2", "resolved")]
    text = log(project)
    assert "changed by fix #1 (it names none: the whole document), and review #2, which" in text
    assert "its place changed by fix #1 (## Section 2), and review #2 did not report it" in text


# --- item 7: halt reasons are true and single ----------------------------------------------------

SAME_THREE = (
    "The raffle money has no named holder",
    "The dog show has no wet-weather plan",
    "The stall map leaves out the cake stall",
)


def labelled(*severities: str) -> dict[str, Any]:
    return {
        "issues": [issue(s, d, "Section 3") for s, d in zip(severities, SAME_THREE, strict=True)]
    }


def test_oscillating_labels_over_open_criticals_halt_as_persistence_not_fabrication(
    run: Run,
) -> None:
    """The same three findings, relabelled critical → minor → minor → critical …: nothing was
    manufactured; the criticals persist, and persistence halts at 2 × stagnation_limit."""
    reviews = {
        1: labelled("critical", "medium", "medium"),
        2: labelled("minor", "minor", "minor"),
        3: labelled("minor", "minor", "minor"),
        4: labelled("critical", "critical", "critical"),
        5: labelled("minor", "minor", "minor"),
        "default": labelled("critical", "medium", "minor"),
    }
    project, outcome = run(reviews, ECHO_FIX, max_iterations=12)
    halted(project, outcome, HaltReason.GUARD_ISSUES_PERSIST, 6)
    assert "F1 (critical" in outcome.reason
    assert "manufacturing" not in outcome.reason
    fabrication = [line for line in log(project).splitlines() if line.startswith("- fabrication:")]
    assert any("found before" in line for line in fabrication), fabrication


def test_a_reviewer_pinning_new_findings_to_old_ids_is_halted_by_twice_the_stagnation_limit(
    run: Run,
) -> None:
    """Each review cites F1–F4 for four new medium findings, while the minors around them fall
    by one a round: the ids keep F1–F4 open, so persistence halts at 6 (2 × 3), not the ceiling,
    and no log entry says both that the findings persist and that the total fell."""
    reviews: dict[int | str, dict[str, Any]] = {}
    for n in range(1, 13):
        pinned = [
            issue("medium", f"Round {n} concern {k}: the {word} is unclear", "", finding=f"F{k}")
            for k, word in enumerate(("budget", "venue", "rota", "signage"), start=1)
        ]
        minors = [issue("minor", f"Typo number {m} in the stall list") for m in range(12 - n)]
        reviews[n] = {"issues": pinned + minors}
    project, outcome = run(reviews, ECHO_FIX, max_iterations=12)
    halted(project, outcome, HaltReason.GUARD_ISSUES_PERSIST, 6)
    assert "F1" in outcome.reason and "F4" in outcome.reason
    for entry in log_entries(log(project)):
        said = "\n".join(entry.guards)
        assert not ("the same findings persist" in said and "the total fell" in said), entry.text
    assert len(subjects(project)) < 20
