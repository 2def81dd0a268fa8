"""What Prefect costs per polish iteration: the same loop run plainly and as the Prefect flow.

Both runs use near-instant shell agents, so the difference is orchestration (task runs, state
reports, artifacts), not agent time. Each mode runs N iterations and 1 iteration: the difference
over N - 1 is the cost of one more iteration (the "marginal" figures), free of what a flow run
costs once whatever its length (creating the run, the final artifacts). The flow runs as
`thoughtforge polish` runs it (`polish_in_process`).

The machine may be shared, so the modes alternate for `--rounds` rounds and the figures are
medians over the rounds. The server records task runs after the fact: each run waits until it has
caught up, so no backlog slows the next one. The CPU figures (this process and the agents and git
it ran, not the server) move less with the machine's load than the wall-clock ones.
Run: `.venv/bin/python bench/bench_polish_overhead.py [N] [--rounds R]` (N: 200 unless given).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from typing import TypeVar

import yaml

ROOT = Path(__file__).resolve().parent.parent
T = TypeVar("T")
REVIEWER = """#!/bin/sh
cat > /dev/null
if [ "$THOUGHTFORGE_ITERATION" -lt "$BENCH_ITERATIONS" ]; then
  echo '{"issues": [{"severity": "critical", "description": "Budget section has no contingency line"}, {"severity": "critical", "description": "Venue booking deadline is missing"}, {"severity": "medium", "description": "Rain plan does not name a marquee supplier"}]}'
else
  echo '{"issues": []}'
fi
"""
FIXER = """#!/bin/sh
awk 'found {print} /^Plan:$/ {found = 1}'
echo "Revised in iteration $THOUGHTFORGE_ITERATION."
"""
PLAN = "# Plan\n\n" + "".join(
    f"## Part {n}\n\n| Objective | Plan | Assessment |\n| --- | --- | --- |\n| o{n} | p{n} | a{n} |\n\n"
    for n in range(8)
)


@dataclass(frozen=True)
class Cost:
    """What one run took: wall-clock seconds, and CPU seconds of this process and its children."""

    wall: float
    cpu: float


def main(iterations: int, rounds: int) -> None:
    from prefect.testing.utilities import prefect_test_harness

    from thoughtforge.config import load_config
    from thoughtforge.core.creation import create_project
    from thoughtforge.core.git_repo import commit
    from thoughtforge.core.state import read_status, write_status
    from thoughtforge.flows.polish import polish_in_process
    from thoughtforge.models import DeliverableType, Phase
    from thoughtforge.phases.polish.loop import PolishLoop

    work = Path(tempfile.mkdtemp(prefix="tf-bench-"))
    config_paths = {n: _config(work / f"n{n}", n) for n in {1, iterations}}
    configs = {n: load_config(path) for n, path in config_paths.items()}
    config = configs[iterations]

    def project():
        p = create_project(config, brain_dump="benchmark")
        (p.docs_dir / "plan.md").write_text(PLAN)
        (p.docs_dir / "constraints.md").write_text("## Acceptance Criteria\n- fast\n")
        update = {"phase": Phase.POLISHING, "deliverable_type": DeliverableType.PLAN}
        write_status(p.dir, read_status(p.dir).model_copy(update=update))
        commit(p.dir, "ready")
        return p

    def plain(n: int) -> Cost:
        loop = PolishLoop(project(), configs[n])
        outcome, cost = _timed(loop.run)
        assert outcome.iteration == n, outcome
        return cost

    def flowed(n: int) -> Cost:
        flow_project = project()
        outcome, cost = _timed(
            lambda: polish_in_process(flow_project.id, config_paths[n], wait_for_human=False)
        )
        assert outcome.iteration == n, outcome
        _wait_until_recorded(flow_project.id)
        return cost

    results: dict[str, list[Cost]] = {"plain_n": [], "plain_1": [], "flow_n": [], "flow_1": []}
    with prefect_test_harness(server_startup_timeout=120):
        plain(1)  # warm-up: imports, the prompt files, git's first start
        flowed(1)  # warm-up: the first flow run of a process pays for imports and the client
        for _ in range(rounds):
            for name, run, n in (
                ("plain_n", plain, iterations),
                ("plain_1", plain, 1),
                ("flow_n", flowed, iterations),
                ("flow_1", flowed, 1),
            ):
                results[name].append(run(n))

    steps = iterations - 1

    def per_iteration(mode: str, field: str) -> float:
        """Median over the rounds of the marginal cost of one iteration, in ms."""
        pairs = zip(results[f"{mode}_n"], results[f"{mode}_1"], strict=True)
        return 1000 * median((getattr(n, field) - getattr(one, field)) / steps for n, one in pairs)

    plain_marginal, flow_marginal = per_iteration("plain", "wall"), per_iteration("flow", "wall")
    plain_cpu, flow_cpu = per_iteration("plain", "cpu"), per_iteration("flow", "cpu")
    fixed = median(
        f.wall - p.wall for f, p in zip(results["flow_1"], results["plain_1"], strict=True)
    )
    print(
        json.dumps(
            {
                "iterations": iterations,
                "rounds": rounds,
                "plain_seconds": round(median(c.wall for c in results["plain_n"]), 3),
                "prefect_seconds": round(median(c.wall for c in results["flow_n"]), 3),
                "plain_marginal_ms": round(plain_marginal, 1),
                "prefect_marginal_ms": round(flow_marginal, 1),
                "marginal_ratio": round(flow_marginal / plain_marginal, 2),
                "plain_cpu_marginal_ms": round(plain_cpu, 1),
                "prefect_cpu_marginal_ms": round(flow_cpu, 1),
                "prefect_fixed_seconds_per_run": round(fixed, 3),
                "marginal_ratio_by_round": [
                    round((f.wall - f1.wall) / (p.wall - p1.wall), 2)
                    for p, p1, f, f1 in zip(*results.values(), strict=True)
                ],
            },
            indent=2,
        )
    )


def _timed(run: Callable[[], T]) -> tuple[T, Cost]:
    """What `run` returns, and what it took (CPU: this process and the children it reaped)."""
    started, cpu = time.perf_counter(), _cpu()
    result = run()
    return result, Cost(wall=time.perf_counter() - started, cpu=_cpu() - cpu)


def _cpu() -> float:
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def _wait_until_recorded(project_id: str) -> None:
    """Until the server has recorded the run as ended: it records what a run reports (its
    state changes, its logs) after the fact, and a backlog would slow whatever runs next."""
    from prefect import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterTags

    from thoughtforge.stack.api import project_tag

    runs = FlowRunFilter(tags=FlowRunFilterTags(all_=[project_tag(project_id)]))
    with get_client(sync_client=True) as client:
        while not any(
            run.state is not None and run.state.is_final()
            for run in client.read_flow_runs(flow_run_filter=runs)
        ):
            time.sleep(0.2)


def _config(work: Path, iterations: int) -> Path:
    agents = work / "agents"
    agents.mkdir(parents=True)
    for name, body in (
        ("reviewer", REVIEWER.replace("$BENCH_ITERATIONS", str(iterations))),
        ("fixer", FIXER),
    ):
        (agents / name).write_text(body)
        (agents / name).chmod(0o755)
    data = yaml.safe_load((ROOT / "config.yaml.example").read_text())
    data["projects"]["directory"] = str(work.parent / "projects")
    # A fixer that changes the plan, and a plateau no guard ends before the last iteration.
    data["polish"].update(
        reviewer_agent="reviewer", max_iterations=iterations + 5, stagnation_limit=iterations + 5
    )
    data["agents"]["default"] = "fixer"
    data["agents"]["available"].update(
        reviewer={"command": str(agents / "reviewer")}, fixer={"command": str(agents / "fixer")}
    )
    path = work / "config.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "iterations",
        nargs="?",
        type=int,
        default=200,
        help="polish iterations per run (default: 200)",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="rounds of both modes, alternating; figures are medians (default: 3)",
    )
    arguments = parser.parse_args()
    if arguments.iterations < 2 or arguments.rounds < 1:
        parser.error("iterations must be at least 2 (the marginal cost is against 1), rounds 1")
    return arguments


if __name__ == "__main__":
    arguments = _arguments()
    main(arguments.iterations, arguments.rounds)
