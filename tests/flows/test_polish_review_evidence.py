"""Issue 54, items 4–6: a review belongs to the version it read, the reviewer sees the acceptance
criteria, a plateau is the spec's, and an answer is read by its last review. Each trajectory runs
through the polish flow on a real Prefect server, with scripted agents; each docstring says what
the loop did before.
"""

from __future__ import annotations

import json

import pytest

from tests.flows.test_polish_trajectories import Run, log
from tests.flows.test_polish_trajectories import run as polish_run  # noqa: F401  (the fixture `run`)
from tests.polish_setup import every_section_fix, review
from thoughtforge.core.state import read_polish_state
from thoughtforge.phases.polish.finding_tracker import read_tracker


@pytest.fixture
def run(polish_run: Run) -> Run:  # noqa: F811  (the imported fixture, by name)
    """The earlier rounds' harness: a fresh project polished through the flow, scripted."""
    return polish_run


# --- the spec's plateau: a total still falling is no plateau -----------------------------------


def test_a_total_still_falling_by_one_is_no_plateau_and_the_loop_goes_on_to_converge(
    run: Run,
) -> None:
    """Totals 12 → 11 → 11 with the findings rotating. Before: read as a plateau ("within one"),
    `done` at iteration 3 with 5 medium findings open. The total fell across the window, so the
    loop goes on; review 4 is within the thresholds: `done` by termination at 4, nothing open."""
    reviews: dict[int | str, str] = {
        1: review(0, 5, 7, "alpha", located=True),
        2: review(0, 5, 6, "bravo", located=True),
        3: review(0, 5, 6, "charlie", located=True),
        4: review(0, 2, 1, "delta", located=True),
    }
    project, outcome = run(reviews, every_section_fix())
    assert (outcome.verdict, outcome.iteration) == ("done", 4), outcome.reason
    assert [e.total for e in read_polish_state(project.dir).trajectory] == [12, 11, 11, 3]
    assert "no plateau: the total is still falling (12→11→11)" in log(project)
    assert outcome.reason.startswith("Polish loop finished after 4 iterations: polish loop conv")


def test_a_wobble_of_one_with_no_net_fall_is_still_the_spec_plateau(run: Run) -> None:
    """Totals 7 → 8 → 7 with rotating findings: no net fall over the window, a plateau; `done`
    at 3 as before (an honest plateau is not made slower)."""
    reviews: dict[int | str, str] = {
        1: review(0, 4, 3, "alpha", located=True),
        2: review(0, 4, 4, "bravo", located=True),
        3: review(0, 4, 3, "charlie", located=True),
    }
    _, outcome = run(reviews, every_section_fix())
    assert (outcome.verdict, outcome.iteration) == ("done", 3), outcome.reason
    assert "Converged at a plateau above the thresholds" in outcome.reason


# --- whole answers: the last review of an answer, never the first ------------------------------


def test_last_rounds_empty_review_repeated_before_the_findings_is_no_done(run: Run) -> None:
    """Review 2 repeats an empty `{"issues": []}` and then writes its findings (a critical).
    Before: the first object was read and the loop ended `done` at 2 with the critical unseen.
    The findings are read: the critical is counted, fixed, and review 3's clean answer ends it."""
    critical = review(1, 0, 0, "budget", located=True)
    reviews: dict[int | str, str] = {
        1: review(0, 4, 0, "rain", located=True),
        2: f"Last round's answer was:\n{json.dumps({'issues': []})}\nThis round:\n{critical}",
        "default": review(),
    }
    project, outcome = run(reviews, every_section_fix())
    assert (outcome.verdict, outcome.iteration) == ("done", 3), outcome.reason
    assert "**Review:** 1 critical, 0 medium, 0 minor" in log(project).split("## Iteration ")[2]
    critical_findings = [f for f in read_tracker(project.dir).findings if f.severity == "critical"]
    assert [(f.found_at, f.status) for f in critical_findings] == [(2, "resolved")]
