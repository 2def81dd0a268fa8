"""What importing the flow module costs a fresh Python process, beside the yardsticks.

Two pairs, each run in turn (A B A B ...) so a drift of the machine's speed moves both sides:
- `import thoughtforge.flows.pipeline` against `import prefect` (the issue's yardstick);
- the same plus Prefect's engine against the engine alone: what a cold flow-run process pays for
  ThoughtForge, since the engine loads `prefect.main` (logging set-up) when a run starts anyway.

Each run is a whole process: wall seconds from start to exit, and its peak RSS from `wait4`.
Usage: python bench/bench_flow_import.py [RUNS]   (default 15; prints medians and ratios)
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

PAIRS = {
    "flow module / import prefect": (
        "import thoughtforge.flows.pipeline",
        "import prefect",
    ),
    "engine + flow module / engine": (
        "import prefect.flow_engine, thoughtforge.flows.pipeline",
        "import prefect.flow_engine",
    ),
}


def _run(code: str) -> tuple[float, float]:
    """Wall seconds and peak MiB of one `python -c code`."""
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-c", code])
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    if (code_exit := os.waitstatus_to_exitcode(status)) != 0:
        raise SystemExit(f"{code!r} exited {code_exit}")
    return wall, usage.ru_maxrss / 1024


def _pair(a: str, b: str, runs: int) -> None:
    _run(a)  # warm the page cache
    _run(b)
    pairs = [(_run(a), _run(b)) for _ in range(runs)]
    for side, code in enumerate((a, b)):
        wall = statistics.median(pair[side][0] for pair in pairs)
        peak = statistics.median(pair[side][1] for pair in pairs)
        print(f"  {code:<58} wall {wall:.3f} s  peak {peak:.1f} MiB")
    wall_ratios = [run_a[0] / run_b[0] for run_a, run_b in pairs]
    peak_ratios = [run_a[1] / run_b[1] for run_a, run_b in pairs]
    print(
        f"  ratio, pair by pair: wall median {statistics.median(wall_ratios):.3f}"
        f" (min {min(wall_ratios):.3f}, max {max(wall_ratios):.3f}),"
        f" peak median {statistics.median(peak_ratios):.3f}"
    )


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    for name, (a, b) in PAIRS.items():
        print(f"{name} ({runs} pairs)")
        _pair(a, b, runs)


if __name__ == "__main__":
    main()
