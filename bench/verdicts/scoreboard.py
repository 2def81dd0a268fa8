"""The scoreboard: per population, the rate of false `done`, of needless halts, of halts whose
stated cause is not what happened; iterations and agent calls against the oracle's; the halt
reasons. Rates carry a 95 % Wilson interval; a goal is missed only when the whole interval is
above it (`miss`)."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from bench.verdicts.populations import Population
from bench.verdicts.simulation import Run

Z = 1.96
GOALS = {"false_done": 0.01, "needless_halt": 0.05, "iterations_ratio": 1.3}
"""Honest-noisy populations; adversarial ones: false done 0; every population: wrong cause 0."""


@dataclass(frozen=True)
class Rate:
    hits: int
    runs: int

    @property
    def value(self) -> float:
        return self.hits / self.runs if self.runs else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """The 95 % Wilson score interval."""
        if not self.runs:
            return 0.0, 1.0
        n, p = self.runs, self.value
        centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
        half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
        return max(0.0, centre - half), min(1.0, centre + half)

    def shown(self) -> str:
        low, high = self.interval
        return f"{100 * self.value:.1f} [{100 * low:.1f}–{100 * high:.1f}]"

    def miss(self, goal: float) -> bool:
        """Above the goal by more than the sample's error."""
        return self.interval[0] > goal + 1e-9  # a Wilson bound of 0 can come out as 1e-17


@dataclass(frozen=True)
class Row:
    population: Population
    runs: list[Run]

    @property
    def done(self) -> Rate:
        return Rate(sum(r.verdict == "done" for r in self.runs), len(self.runs))

    @property
    def false_done(self) -> Rate:
        return Rate(sum(r.false_done for r in self.runs), len(self.runs))

    @property
    def needless_halt(self) -> Rate:
        needless = sum(r.verdict == "halt" and r.oracle_iterations is not None for r in self.runs)
        return Rate(needless, len(self.runs))

    @property
    def wrong_cause(self) -> Rate:
        halts = [r for r in self.runs if r.verdict == "halt"]
        return Rate(sum(r.true_cause is False for r in halts), len(halts))

    def _both_done(self) -> list[Run]:
        return [r for r in self.runs if r.verdict == "done" and r.oracle_iterations is not None]

    @property
    def iterations_ratio(self) -> float | None:
        both = self._both_done()
        oracle = sum(r.oracle_iterations or 0 for r in both)
        return sum(r.iterations for r in both) / oracle if oracle else None

    @property
    def calls_ratio(self) -> float | None:
        both = self._both_done()
        oracle = sum(r.oracle_calls for r in both)
        return sum(r.calls for r in both) / oracle if oracle else None

    @property
    def mean_iterations(self) -> float:
        return sum(r.iterations for r in self.runs) / len(self.runs)

    @property
    def oracle_done(self) -> Rate:
        return Rate(sum(r.oracle_iterations is not None for r in self.runs), len(self.runs))

    @property
    def halt_reasons(self) -> str:
        found = Counter(
            r.guard or (r.halt_reason.value if r.halt_reason else "?")
            for r in self.runs
            if r.verdict == "halt"
        )
        return ", ".join(f"{name} {count}" for name, count in found.most_common()) or "-"

    def misses(self) -> list[str]:
        """The goals this row misses by more than its sample's error."""
        found = []
        if self.population.honest:
            if self.false_done.miss(GOALS["false_done"]):
                found.append("false done > 1 %")
            if self.needless_halt.miss(GOALS["needless_halt"]):
                found.append("needless halts > 5 %")
            ratio = self.iterations_ratio
            if ratio is not None and ratio > GOALS["iterations_ratio"]:
                found.append(f"iterations {ratio:.2f}x > 1.3x")
        elif self.false_done.hits:
            found.append("false done > 0")
        if self.wrong_cause.hits:
            found.append("a halt names a wrong cause")
        return found


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def table(rows: list[Row]) -> str:
    """The scoreboard as a Markdown table (rates in %, 95 % Wilson intervals)."""
    head = (
        "| population | runs | done % | false done % | needless halt % | wrong cause % "
        "| iter (mean) | iter ×oracle | calls ×oracle | oracle done % | halts by guard | "
        "goals missed |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|"
    )
    lines = [head]
    for row in rows:
        lines.append(
            f"| {row.population.name} | {len(row.runs)} | {100 * row.done.value:.0f} "
            f"| {row.false_done.shown()} | {row.needless_halt.shown()} "
            f"| {row.wrong_cause.shown()} | {row.mean_iterations:.1f} "
            f"| {_ratio(row.iterations_ratio)} | {_ratio(row.calls_ratio)} "
            f"| {100 * row.oracle_done.value:.0f} | {row.halt_reasons} "
            f"| {'; '.join(row.misses()) or 'none'} |"
        )
    return "\n".join(lines)
