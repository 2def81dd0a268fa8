"""Where a polish run is heading, in one word, while it runs: converging, stuck or diverging,
and what its last iteration cost; for `status` and the workbench's polish panel.

Read from the reviews' totals over the last `WINDOW` iterations (the trajectory the board's
sparkline draws). They are the reviewer's word, not the truth: the verdict scoreboard
(`bench/bench_verdicts.py`) measures how often a falling total still ends in a wrong `done`, so
the line says whose counts it reads.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from thoughtforge.core.spend.budget import usd
from thoughtforge.core.state import TrajectoryEntry

WINDOW = 3
Heading = Literal["starting", "converging", "stuck", "diverging"]


class Trend(BaseModel):
    heading: Heading
    line: str
    """The heading with its figures, e.g. `converging: 9 → 6 → 4 issues over iterations 2–4
    (the reviewer's counts); the last iteration cost $0.31`."""


def polish_heading(trajectory: list[TrajectoryEntry]) -> Trend | None:
    """The heading of the run whose trajectory this is; None before its first iteration."""
    if not trajectory:
        return None
    window = trajectory[-WINDOW:]
    cost = _cost(trajectory[-1])
    if len(window) < 2:
        return Trend(heading="starting", line=f"starting: one review so far{cost}")
    first, last = window[0].total, window[-1].total
    heading: Heading = "converging" if last < first else "diverging" if last > first else "stuck"
    totals = " → ".join(str(entry.total) for entry in window)
    span = f"iterations {window[0].iteration}–{window[-1].iteration}"
    return Trend(
        heading=heading,
        line=f"{heading}: {totals} issues over {span} (the reviewer's counts){cost}",
    )


def _cost(entry: TrajectoryEntry) -> str:
    return "" if entry.usd is None else f"; the last iteration cost {usd(entry.usd)}"
