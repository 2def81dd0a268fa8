"""What Prefect costs per polish iteration: the same loop run plainly and as the Prefect flow.

Both runs use near-instant shell agents, so the difference is orchestration (task runs, state
reports, artifacts), not agent time. Each mode runs N iterations and 1 iteration: the difference
over N - 1 is the cost of one more iteration (the "marginal" figures), free of what a flow run
costs once whatever its length (creating the run, the temporary result store, the final
artifacts). Run: `.venv/bin/python bench/bench_polish_overhead.py [N]`.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
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
"""
PLAN = "# Plan\n\n" + "".join(
    f"## Part {n}\n\n| Objective | Plan | Assessment |\n| --- | --- | --- |\n| o{n} | p{n} | a{n} |\n\n"
    for n in range(8)
)


def main(iterations: int) -> None:
    from prefect.testing.utilities import prefect_test_harness

    from thoughtforge.config import load_config
    from thoughtforge.core import create_project, read_status, write_status
    from thoughtforge.core.git_repo import commit
    from thoughtforge.flows.polish import polish_flow
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

    def plain(n: int) -> float:
        loop_project = project()
        started = time.perf_counter()
        outcome = PolishLoop(loop_project, configs[n]).run()
        assert outcome.iteration == n, outcome
        return time.perf_counter() - started

    def flowed(n: int) -> float:
        flow_project = project()
        started = time.perf_counter()
        outcome = polish_flow(flow_project.id, str(config_paths[n]))
        assert outcome.iteration == n, outcome
        return time.perf_counter() - started

    plain(1)  # warm-up: imports, the prompt files, git's first start
    plain_n, plain_1 = plain(iterations), plain(1)
    with prefect_test_harness(server_startup_timeout=120):
        flowed(1)  # warm-up: the first flow run of a process pays for imports and the client
        flow_n, flow_1 = flowed(iterations), flowed(1)

    steps = max(iterations - 1, 1)
    plain_marginal = (plain_n - plain_1) / steps
    flow_marginal = (flow_n - flow_1) / steps
    print(
        json.dumps(
            {
                "iterations": iterations,
                "plain_seconds": round(plain_n, 3),
                "prefect_seconds": round(flow_n, 3),
                "plain_ms_per_iteration": round(1000 * plain_n / iterations, 1),
                "prefect_ms_per_iteration": round(1000 * flow_n / iterations, 1),
                "ratio": round(flow_n / plain_n, 2),
                "plain_marginal_ms": round(1000 * plain_marginal, 1),
                "prefect_marginal_ms": round(1000 * flow_marginal, 1),
                "marginal_ratio": round(flow_marginal / plain_marginal, 2),
                "prefect_fixed_seconds_per_run": round(flow_1 - plain_1, 3),
            },
            indent=2,
        )
    )


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
    data["polish"].update(reviewer_agent="reviewer", max_iterations=iterations + 5)
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
        default=20,
        help="polish iterations per run (default: 20)",
    )
    arguments = parser.parse_args()
    if arguments.iterations < 1:
        parser.error("iterations must be at least 1")
    return arguments


if __name__ == "__main__":
    main(_arguments().iterations)
