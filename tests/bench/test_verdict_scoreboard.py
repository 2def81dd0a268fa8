"""The verdict scoreboard kept honest (issue 56): a fixed-seed sample of every population, each
rate held to its goal, or, where today's figure misses the goal, to that figure: a change that
makes a rate worse by more than the sample's error fails, whichever rate it trades for which.

`BEFORE` holds the misses measured on main on 2026-12-06 with this very sample (hits of 100
runs; wrong causes of the halts), before issue 54's changes: lower them as the guards improve.
Goals: honest populations false done <= 1 %, needless halts <= 5 %, iterations <= 1.3x the
oracle's; adversarial false done 0; no halt naming a wrong cause.
"""

from __future__ import annotations

import pytest

from bench.verdicts.populations import HELD_OUT, TUNING, Population
from bench.verdicts.scoreboard import GOALS, Rate, Row
from bench.verdicts.simulation import simulate

SAMPLE = range(100)
BEFORE: dict[str, dict[str, float]] = {
    "honest-typical": {"false_done": 0.22, "wrong_cause": 1.0},
    "honest-weak-reviewer": {"false_done": 0.37, "needless_halt": 0.06, "wrong_cause": 0.5},
    "honest-strong": {"false_done": 0.06, "wrong_cause": 1.0},
    "honest-sloppy-shapes": {"false_done": 0.28, "wrong_cause": 0.667},
    "adv-clean-review-unchanged": {"false_done": 0.21},
    "adv-deleted-content": {"false_done": 0.67, "wrong_cause": 0.833},
    "adv-nonsense-content": {"false_done": 0.76, "wrong_cause": 0.667},
    # After issue 54 (same day): its one halt in this sample names a wrong cause (a trade the
    # ratchet showed: the stale review's false done fell from 68 % to about 22 %).
    "adv-stale-review": {"false_done": 0.68, "wrong_cause": 1.0},
    "adv-relabel": {"false_done": 0.24, "wrong_cause": 0.333},
    "adv-wrappers": {"false_done": 0.19},
    "adv-timestamp-fix": {"false_done": 0.73, "wrong_cause": 0.8},
    "held-honest-mid": {"false_done": 0.33, "needless_halt": 0.07, "wrong_cause": 0.571},
    "held-honest-careful": {"false_done": 0.12, "wrong_cause": 1.0},
    "held-honest-chatty": {"false_done": 0.27, "wrong_cause": 0.667},
    "held-adv-clean-review-unchanged": {"false_done": 0.23},
    "held-adv-deleted-content": {"false_done": 0.76, "wrong_cause": 1.0},
    "held-adv-nonsense-content": {"false_done": 0.74, "wrong_cause": 1.0},
    "held-adv-stale-review": {"false_done": 0.66, "wrong_cause": 0.5},
    "held-adv-relabel": {"false_done": 0.46, "wrong_cause": 0.25},
    "held-adv-wrappers": {"false_done": 0.41, "wrong_cause": 0.333},
    "held-adv-timestamp-fix": {"false_done": 0.69, "wrong_cause": 0.6},
}
"""Per population, the rates of this sample that missed their goal on main, 2026-12-06."""


def _goals(population: Population) -> dict[str, float]:
    if population.honest:
        return {
            "false_done": GOALS["false_done"],
            "needless_halt": GOALS["needless_halt"],
            "wrong_cause": 0.0,
        }
    return {"false_done": 0.0, "wrong_cause": 0.0}


def _row(population: Population) -> Row:
    return Row(population, [simulate(population, seed) for seed in SAMPLE])


def _problems(row: Row) -> list[str]:
    name = row.population.name
    found = []
    for metric, goal in _goals(row.population).items():
        rate: Rate = getattr(row, metric)
        allowed = max(goal, BEFORE.get(name, {}).get(metric, 0.0))
        if rate.miss(allowed):
            found.append(f"{name}: {metric} {rate.shown()} % is above {100 * allowed:.1f} %")
    ratio = row.iterations_ratio
    limit = max(GOALS["iterations_ratio"], BEFORE.get(name, {}).get("iterations_ratio", 0.0))
    if row.population.honest and ratio is not None and ratio > limit:
        found.append(f"{name}: {ratio:.2f}x the oracle's iterations, above {limit:.2f}x")
    return found


@pytest.mark.slow
@pytest.mark.parametrize("population", TUNING + HELD_OUT, ids=lambda p: p.name)
def test_each_rate_keeps_its_goal_or_todays_figure(population: Population) -> None:
    assert _problems(_row(population)) == []
