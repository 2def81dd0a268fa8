"""What code mode costs around the agent and the tests themselves.

- `build_cycle`: one whole Phase 3 in code mode (scripted agent writes a buggy calculator, one
  test-fix cycle repairs it): the plan gate skipped, 2 agent calls, 3 test runs (the build's
  check, the failing run, the passing run after the fix), commits, the advance.
- `suite_run`: one run of the same project's pytest suite through `run_tests`, the floor that
  every cycle pays at least once.
- `review_context_*`: the reviewer's context of a 300-file codebase, whole (it fits) and as a
  manifest plus diff (it does not).

Run: pytest bench/bench_code_mode.py --benchmark-only -p no:cacheprovider -o addopts=''
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from pytest_benchmark.fixture import BenchmarkFixture

from tests.code_setup import (
    BUGGY_BUILD,
    CALC_FIXED,
    GOOD_BUILD,
    TEST_COMMAND,
    code_project,
    code_sections,
    wrote,
)
from tests.conftest import config_data
from thoughtforge.config import Config, load_config
from thoughtforge.core.git_repo import commit, init_repo
from thoughtforge.plugins.code.builder import CodeBuilder
from thoughtforge.plugins.code.context import review_context
from thoughtforge.plugins.code.suite_run import run_tests


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Config:
    script = tmp_path / "script.yaml"
    steps = {"code-build": wrote(BUGGY_BUILD), "code-test-fix": wrote({"calc.py": CALC_FIXED})}
    script.write_text(yaml.safe_dump({"steps": steps}))
    monkeypatch.setenv("THOUGHTFORGE_SCRIPT", str(script))
    path = tmp_path / "config.yaml"
    sections = code_sections(tmp_path, concurrency={"max_parallel_runs": 50})
    path.write_text(yaml.safe_dump(config_data(tmp_path, **sections)))
    return load_config(path)


def test_build_cycle(benchmark: BenchmarkFixture, config: Config) -> None:
    def build() -> str:
        return CodeBuilder(code_project(config), config).run().verdict

    assert benchmark.pedantic(build, rounds=5, iterations=1) == "built"


def test_suite_run(benchmark: BenchmarkFixture, tmp_path: Path) -> None:
    for name, text in GOOD_BUILD.items():
        (tmp_path / name).write_text(text)
    run = benchmark.pedantic(lambda: run_tests(tmp_path, TEST_COMMAND, 60), rounds=10, iterations=1)
    assert run.succeeded


@pytest.fixture(scope="module")
def codebase(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("codebase")
    init_repo(root)
    for n in range(300):
        module = root / "pkg" / f"module_{n:03d}.py"
        module.parent.mkdir(exist_ok=True)
        module.write_text("".join(f"def f{k}(x):\n    return x + {k}\n\n" for k in range(40)))
    commit(root, "base")
    (root / "pkg" / "module_000.py").write_text("def changed():\n    return 1\n")
    commit(root, "change")
    return root


@pytest.mark.parametrize("budget", [1_000_000, 20_000], ids=["whole", "manifest"])
def test_review_context(benchmark: BenchmarkFixture, codebase: Path, budget: int) -> None:
    context: Callable[[], object] = lambda: review_context(codebase, budget, since=None)  # noqa: E731
    result = benchmark(context)
    assert result.mode == ("codebase" if budget == 1_000_000 else "manifest")  # type: ignore[attr-defined]
