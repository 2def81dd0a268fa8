"""What the bounded readers cost against the worst inputs of the fifth reliability round.

- `alias_bomb`: a config whose agent `flags` hold a 9-level YAML alias bomb (9**9 values once
  expanded, about 300 bytes written): refused by counting, before anything is built.
- `progress_flood`: 10,000 progress reports from a plugin through the build's listener.
- `excerpt`: the error's quote of a 5 MB wrong-typed value.

Measured on the 2-core machine of issue 48 (`/usr/bin/time -v`, and the scripts in its note):
`thoughtforge status` over the bomb took 0.40 s and 40 MB RSS (before: killed after 120 s);
a 5 MB wrong-typed value: 0.57 s, 40 MB, a 106-character error (before: 2.6 s, 83 MB, 5,000,196
characters); 5,000 `tools/list` requests from an MCP client that never reads stdout grew the
server by 4 MB, the client held after 1,348 (before: by 439 MB, every request read); 5,000
progress reports took 0.02 s (before: 27.5 s writing each one), 10**6 took 3.5 s.

Run: pytest bench/bench_hostile_inputs.py --benchmark-only -p no:cacheprovider -o addopts=''
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from thoughtforge.bounded_input import InputRefused, excerpt, load_yaml
from thoughtforge.core.build_progress import BuildProgress, ProgressItem, recorded

BOMB = (
    "flags: ["
    + ", ".join(
        ["&a0 [x, x, x, x, x, x, x, x, x]"]
        + [f"&a{n} [" + ", ".join([f"*a{n - 1}"] * 9) + "]" for n in range(1, 9)]
    )
    + "]\n"
)


def test_alias_bomb(benchmark: BenchmarkFixture) -> None:
    def refuse() -> None:
        with pytest.raises(InputRefused):
            load_yaml(BOMB, "config.yaml")

    benchmark(refuse)


def test_progress_flood(benchmark: BenchmarkFixture, tmp_path: Path) -> None:
    reports = [
        BuildProgress(items=[ProgressItem(label="item", done=False, detail=f"{n}")])
        for n in range(10_000)
    ]

    def flood() -> None:
        listener = recorded(tmp_path, lambda progress: None)
        for report in reports:
            listener(report)
        listener.close()

    benchmark(flood)


def test_excerpt(benchmark: BenchmarkFixture) -> None:
    value = "9" * 5_000_000 + "x"
    assert len(benchmark(excerpt, value)) <= 64
