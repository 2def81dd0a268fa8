"""Projects per minute with one and two workers, on SQLite and on PostgreSQL.

The same demo workload each time: `PROJECTS` pipeline runs of the wedding example with
`auto_confirm`, made a quarter of a second apart through the deployment (as a person's or a
script's `prefect deployment run` would), `concurrency.max_parallel_runs: 4`. One worker is the one
`up` starts; two adds `thoughtforge worker --name second` with its own Prefect home, as a second
machine would. Timed from the first run made until every project is `done`. PostgreSQL is a
throwaway cluster (`tests/postgresql.py`). On two cores the point is the shape, not the numbers.

Run: `.venv/bin/python bench/bench_workers.py [--projects 12] [--rounds 1]`.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.postgresql import PASSWORD, create_database, throwaway_cluster  # noqa: E402
from tests.stack.conftest import Stack  # noqa: E402
from thoughtforge.config import load_config  # noqa: E402
from thoughtforge.core.project import list_projects  # noqa: E402
from thoughtforge.models import Phase  # noqa: E402
from thoughtforge.stack.api import PrefectApi  # noqa: E402
from thoughtforge.stack.database import PASSWORD_ENV  # noqa: E402

PARALLEL_RUNS = 4


def _stack(folder: Path, database_url: str | None, port: int | None) -> Stack:
    stack = Stack(folder)
    data = yaml.safe_load(stack.config.read_text())
    data["concurrency"] = {"max_parallel_runs": PARALLEL_RUNS, "max_parallel_agent_calls": 8}
    if database_url is not None and port is not None:
        name = f"prefect_{stack.port}"
        create_database(port, name)
        data["server"]["database_url"] = database_url.replace("/prefect", f"/{name}")
        stack.env[PASSWORD_ENV] = PASSWORD
    stack.config.write_text(yaml.safe_dump(data))
    return stack


def _done(stack: Stack) -> int:
    listings = list_projects(load_config(stack.config)) if stack.projects.exists() else []
    return sum(1 for listing in listings if listing.status and listing.status.phase is Phase.DONE)


def projects_per_minute(stack: Stack, workers: int, projects: int) -> float:
    """One measurement: up (and a second worker), the workload, down."""
    second = {**stack.env, "PREFECT_HOME": str(stack.config.parent / ".prefect-second")}
    assert stack.tf("up").returncode == 0
    try:
        if workers == 2:
            assert stack.tf("worker", "--name", "second", env=second).returncode == 0
        api = PrefectApi(stack.api)
        brain_dump = (REPO / "examples" / "wedding-plan.md").read_text()
        started = time.monotonic()
        for _ in range(projects):
            api.run_deployment(
                "thoughtforge-pipeline/local", {"brain_dump": brain_dump, "auto_confirm": True}
            )
            time.sleep(0.25)
        while _done(stack) < projects:
            if time.monotonic() - started > 900:
                raise TimeoutError(f"only {_done(stack)} of {projects} done after 15 min")
            time.sleep(0.5)
        return projects / ((time.monotonic() - started) / 60)
    finally:
        if workers == 2:
            stack.tf("worker", "--name", "second", "--stop", env=second)
        stack.tf("down")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    figures: dict[tuple[str, int], list[float]] = {}
    with throwaway_cluster() as cluster:
        for _ in range(args.rounds):
            for database, url in (("SQLite", None), ("PostgreSQL", cluster.url)):
                for workers in (1, 2):
                    with tempfile.TemporaryDirectory() as folder:
                        stack = _stack(Path(folder), url, cluster.port)
                        rate = projects_per_minute(stack, workers, args.projects)
                    figures.setdefault((database, workers), []).append(rate)
                    print(f"{database}, {workers} worker(s): {rate:.1f} projects/min", flush=True)
    print(f"\n{args.projects} projects, max_parallel_runs {PARALLEL_RUNS}; median of rounds:")
    for database in ("SQLite", "PostgreSQL"):
        one, two = (statistics.median(figures[(database, n)]) for n in (1, 2))
        print(
            f"  {database:<10}  1 worker {one:5.1f}/min  2 workers {two:5.1f}/min  ×{two / one:.2f}"
        )


if __name__ == "__main__":
    main()
