"""What ThoughtForge's own run of the locked tests costs, and what its second run adds.

- `locked_run`: `run_locked` on the calculator (2 locked tests, both passing): pytest with the
  record plugin (its audit hook on every open and import), then the plain run outside pytest.
- `locked_run_pytest_only`: the same with the plain run left out (what the second run adds is
  the difference).

Run: pytest bench/bench_locked_run.py --benchmark-only -p no:cacheprovider -o addopts=''
Before/after against a commit without the second run: `python bench/bench_locked_run.py`, once
with this tree on the path and once with the older one's (`PYTHONPATH=<its copy>`).
"""

from __future__ import annotations

import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from tests.code_setup import GOOD_BUILD
from thoughtforge.plugins.code.acceptance import runner

NODES = ["test_calc.py::test_ac_1_add", "test_calc.py::test_ac_2_mul"]
PROGRAM = [sys.executable, "-m", "pytest"]


def _project(root: Path) -> Path:
    for name, text in GOOD_BUILD.items():
        (root / name).write_text(text)
    return root


def test_locked_run(benchmark: BenchmarkFixture, tmp_path: Path) -> None:
    project = _project(tmp_path)
    run = benchmark.pedantic(
        lambda: runner.run_locked(project, PROGRAM, NODES, 60), rounds=10, iterations=1
    )
    assert set(run.results.values()) == {"passed"}


def test_locked_run_pytest_only(
    benchmark: BenchmarkFixture, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(tmp_path)
    monkeypatch.setattr(runner, "run_outside", lambda *args: {})
    run = benchmark.pedantic(
        lambda: runner.run_locked(project, PROGRAM, NODES, 60), rounds=10, iterations=1
    )
    assert set(run.results.values()) == {"passed"}


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


if (
    __name__ == "__main__"
):  # wall time, and CPU time of the runs' processes (steadier on a busy box)
    with tempfile.TemporaryDirectory(prefix="bench-locked-") as folder:
        project = _project(Path(folder))
        walls, cpus = [], []
        for _ in range(10):
            start, cpu = time.perf_counter(), _children_cpu()
            runner.run_locked(project, PROGRAM, NODES, 60)
            walls.append(time.perf_counter() - start)
            cpus.append(_children_cpu() - cpu)
        print(
            f"{runner.__file__}: wall median {statistics.median(walls):.3f} s, "
            f"CPU median {statistics.median(cpus):.3f} s"
        )
