"""The verdict scoreboard's simulator (bench/verdicts) drives the real review reader, validator
and guards: stubbing a guard changes its figures, and each adapter call behaves as the loop's."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from bench.verdicts import real
from bench.verdicts.model import Plan, new_plan
from bench.verdicts.populations import HELD_OUT, TUNING, Population, pairs
from bench.verdicts.scoreboard import Rate, Row
from bench.verdicts.simulation import over_thresholds, simulate
from thoughtforge.core.state import PolishState
from thoughtforge.phases.polish import guards
from thoughtforge.phases.polish.guard_view import Seen, over

POPULATIONS = {p.name: p for p in TUNING + HELD_OUT}
SEEDS = range(30)


def _sample(population: Population) -> Row:
    return Row(population, [simulate(population, seed) for seed in SEEDS])


def _stub(monkeypatch: pytest.MonkeyPatch, name: str, guard: object) -> None:
    stubbed = tuple(
        (n, verdict, reason, guard if n == name else check)
        for n, verdict, reason, check in guards._GUARDS
    )
    monkeypatch.setattr(guards, "_GUARDS", stubbed)


def _naive_termination(seen: Seen) -> tuple[bool, str]:
    return not over(seen), "stubbed: done on the review's counts alone"


def test_termination_stubbed_to_trust_the_counts_raises_false_done(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    population = POPULATIONS["adv-clean-review-unchanged"]
    before = _sample(population).false_done.hits
    _stub(monkeypatch, "termination", _naive_termination)
    after = _sample(population).false_done.hits
    assert after > before


def test_a_halting_guard_stubbed_never_to_halt_changes_the_halts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    population = POPULATIONS["adv-clean-review-unchanged"]
    before = _sample(population)
    assert "contradiction" in before.halt_reasons
    _stub(monkeypatch, "contradiction", lambda seen: (False, "stubbed: never halts"))
    after = _sample(population)
    assert "contradiction" not in after.halt_reasons
    assert after.mean_iterations > before.mean_iterations  # the stuck runs go on longer


def test_a_run_is_reproducible_from_its_seed() -> None:
    population = POPULATIONS["honest-typical"]
    assert simulate(population, 7) == simulate(population, 7)


def test_false_done_is_done_with_the_truth_over_the_thresholds() -> None:
    config = real.config()
    runs = [simulate(POPULATIONS["adv-timestamp-fix"], seed) for seed in SEEDS]
    assert any(r.false_done for r in runs)
    for run in runs:
        over_truth = over_thresholds(run.open_at_end, config)
        assert run.false_done == (run.verdict == "done" and over_truth)


def test_the_oracle_never_converges_with_a_fixer_that_resolves_nothing() -> None:
    runs = [simulate(POPULATIONS["adv-deleted-content"], seed) for seed in range(10)]
    starting_clean = [r for r in runs if r.oracle_iterations == 1]
    assert all(r.oracle_iterations in (None, 1) for r in runs), runs
    assert len(starting_clean) < len(runs)


def _plan() -> Plan:
    return new_plan(real.template("event"), random.Random(1), 3, (0.2, 0.4, 0.4), pairs("tuning"))


def test_a_fix_is_judged_by_the_plan_validator() -> None:
    plan = _plan()
    text, template = plan.text(), plan.template
    state = PolishState()
    cut, kept = real.judge_fix(state, text, text[: len(text) * 3 // 4], template)
    assert (cut.outcome, kept) == ("refused", text)
    same, kept = real.judge_fix(state, text, f"Here is the revised plan:\n\n{text}", template)
    assert (same.outcome, kept) == ("unchanged", text)
    plan.slots["budget.plan"][0] = (
        "The finance lead books the caterer by week 9 and keeps a 10 % reserve."
    )
    changed, now = real.judge_fix(state, text, plan.text(), template)
    assert changed.outcome == "changed"
    assert changed.places == ["## Budget"]
    assert "10 % reserve" in now


def test_an_unusable_review_is_asked_again_then_halts() -> None:
    good = (
        '{"issues": [{"severity": "critical", "description": "No rain plan for the ceremony.", '
        '"location": "Risks & Contingencies"}]}'
    )
    answers = [good[:40], good]
    read = real.read_review(lambda k: answers[k], 1, "plan", retries=2)
    assert read.asked == 2
    assert read.review is not None and len(read.review.issues) == 1
    never = real.read_review(lambda k: good[:40], 1, "plan", retries=2)
    assert (never.review, never.asked) == (None, 3)


def test_wilson_interval() -> None:
    low, high = Rate(0, 100).interval
    assert low == 0 and high == pytest.approx(0.0370, abs=1e-4)
    low, high = Rate(5, 100).interval
    assert low == pytest.approx(0.0215, abs=1e-4) and high == pytest.approx(0.1118, abs=1e-4)
    assert Rate(5, 100).miss(0.01) and not Rate(1, 100).miss(0.01)


def test_the_held_out_set_shares_no_population_seed_or_wording_with_the_tuning_set() -> None:
    assert not {p.name for p in TUNING} & {p.name for p in HELD_OUT}
    assert max(p.seed_base for p in TUNING) + 1_000 <= min(p.seed_base for p in HELD_OUT)
    assert {p.pairs for p in TUNING} == {"tuning"} and {p.pairs for p in HELD_OUT} == {"held_out"}
    assert not set(pairs("tuning")) & set(pairs("held_out"))


def test_a_row_counts_needless_halts_against_the_oracle() -> None:
    population = POPULATIONS["honest-typical"]
    base = simulate(population, 0)
    halted = replace(base, verdict="halt", oracle_iterations=3)
    hopeless = replace(base, verdict="halt", oracle_iterations=None)
    row = Row(population, [halted, hopeless, replace(base, verdict="done")])
    assert (row.needless_halt.hits, row.needless_halt.runs) == (1, 3)
