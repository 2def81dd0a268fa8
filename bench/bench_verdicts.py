"""The verdict scoreboard (issue 56): how often the polish loop's `done` is wrong, and how often
it halts a run that would have converged, against ground truth.

Run: .venv/bin/python bench/bench_verdicts.py [--quick] [--runs N] [--set tuning|held-out|all]
(300 runs of each of the 21 populations: 131 s of CPU, about 70 s on 2 free cores; --quick: 40.)

Each run is one polish loop over a plan rendered from a real template with known defects
(severity, section), driven by simulated agents: an honest-but-noisy reviewer and fixer, or a
gaming one per class seen so far (`bench/verdicts/populations.py` names every parameter and
where its value comes from). Every decision is made by the real modules: the review reader, the
tracker, the plan's deliverable validator and the guards (`bench/verdicts/real.py`, the one
coupling). Beside each run, an oracle with the same plan and fixer and a reviewer that reports
the truth: a halt is needless when the oracle reached `done` within the iteration ceiling.

Held-out populations: fixed on 2026-12-06, before any threshold was chosen on this scoreboard.
TUNING (the populations a guard's threshold may be chosen on): honest-typical,
honest-weak-reviewer, honest-strong, honest-sloppy-shapes and adv-* (one per gaming class, on
the typical reviewer), their defects worded by the labelled pairs of `paraphrase_pairs.SAME` and
the plans-and-code pairs, seeds from 1,000 to 16,999. HELD_OUT (reported, never tuned on): held-honest-mid,
held-honest-careful, held-honest-chatty and held-adv-* (on the mid reviewer), worded by
`paraphrase_pairs.HELD_OUT_SAME` and the held-out pairs (never looked at for the matcher), seeds from
51,000. The thresholds measured are the config's defaults (`polish` in config.yaml: critical 0,
medium 3, minor 5, stagnation 3, ceiling 50, 2 re-asks); none was chosen on this scoreboard yet.

Goals (issue 56; reported where missed, never met by tuning the simulator): honest populations
false done <= 1 %, needless halts <= 5 %, iterations <= 1.3x the oracle's; adversarial false
done 0; every halt names the true cause. A rate misses its goal when its whole 95 % Wilson
interval lies above it.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.verdicts.populations import HELD_OUT, SOURCES, TUNING, Population, parameters_table
from bench.verdicts.scoreboard import Row, table
from bench.verdicts.simulation import Run, simulate

SETS = {"tuning": TUNING, "held-out": HELD_OUT, "all": TUNING + HELD_OUT}


def _runs(job: tuple[Population, range]) -> list[Run]:
    population, seeds = job
    return [simulate(population, seed) for seed in seeds]


def scoreboard(populations: list[Population], runs: int, jobs: int) -> list[Row]:
    """Each population's `runs` seeded runs, spread over `jobs` processes."""
    chunk = max(runs // 4, 1)
    work = [
        (p, range(start, min(start + chunk, runs)))
        for p in populations
        for start in range(0, runs, chunk)
    ]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        done = list(pool.map(_runs, work))
    by_name: dict[str, list[Run]] = {p.name: [] for p in populations}
    for runs_of in done:
        for run in runs_of:
            by_name[run.population].append(run)
    return [Row(p, by_name[p.name]) for p in populations]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="40 runs a population")
    parser.add_argument("--runs", type=int, default=300, help="runs a population (300)")
    parser.add_argument("--set", choices=sorted(SETS), default="all")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument(
        "--sources", action="store_true", help="print each population's parameters and sources"
    )
    args = parser.parse_args()
    runs = 40 if args.quick else args.runs
    started = time.monotonic()
    rows = scoreboard(SETS[args.set], runs, args.jobs)
    print(table(rows))
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(
        f"\n{runs} runs a population, {args.jobs} process(es), "
        f"{time.monotonic() - started:.0f} s ({used.ru_utime + used.ru_stime:.0f} s of CPU). "
        "Rates in %, [95 % Wilson interval]; "
        "'iter/calls ×oracle' over the runs both ended done."
    )
    if args.sources:
        print("\n" + parameters_table(SETS[args.set]) + "\n")
        for name, source in SOURCES.items():
            print(f"- {name}: {source}")


if __name__ == "__main__":
    main()
