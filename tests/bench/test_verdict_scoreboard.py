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
BEFORE: dict[str, dict[str, float]] = {}
"""Per population, the rates that missed their goal on 2026-12-06 (filled from the sample)."""


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
