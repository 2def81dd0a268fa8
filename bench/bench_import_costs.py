"""What the imports ThoughtForge defers cost a fresh process, and what a TLS context costs.

The modules' docstrings say why each import is deferred (a command or a run that never needs it
does not pay for it); the figures are measured here, so they never go stale in a docstring.

Each import is a whole `python -c` process, run in turn with its yardstick (A B A B ...) so a
drift of the machine's speed moves both sides: wall seconds from start to exit and peak RSS from
`wait4`, medians, then the difference. `tls context` makes ten API-client-like TLS contexts with
certifi's roots (as Prefect does per client) and prints the RSS each one adds.

Usage: python bench/bench_import_costs.py [RUNS]   (default 9)
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

PAIRS = {
    "pypdf (phases.resources, a PDF read)": ("import pypdf", "pass"),
    "GitPython (core.git_repo)": ("import git", "pass"),
    "pybars's grammar (plugins.plan.template, flows.runtime.warm_start)": ("import pybars", "pass"),
    "httpx beside urllib.request (adapters.http)": ("import httpx", "import urllib.request"),
    "Prefect's client (stack.api)": ("import prefect.client.orchestration", "pass"),
    "FastAPI's encoder, beside prefect.flows (flows.runtime.in_process)": (
        "import prefect.flows, fastapi.encoders",
        "import prefect.flows",
    ),
    "Prefect's server (tests/flows/test_flow_imports.py)": (
        "import prefect.server.api.server",
        "pass",
    ),
    "the scripted agent, started at every call (adapters.agents.scripted)": (
        "import thoughtforge.adapters.agents.scripted",
        "pass",
    ),
    "a pydantic model beside it (the scripted agent's script, errors)": (
        "import thoughtforge.adapters.agents.scripted, pydantic\n"
        "class Reply(pydantic.BaseModel): text: str | None = None",
        "import thoughtforge.adapters.agents.scripted",
    ),
    "prefect.main beside prefect.flows (the flows' imports)": (
        "import prefect.flows, prefect.main",
        "import prefect.flows",
    ),
}

TLS_PROBE = """
import resource, ssl, certifi
def rss(): return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
kept = [ssl.create_default_context(cafile=certifi.where())]
before = rss()
kept += [ssl.create_default_context(cafile=certifi.where()) for _ in range(10)]
print((rss() - before) / 10)
"""


def _run(code: str) -> tuple[float, float]:
    """Wall seconds and peak MiB of one `python -c code`."""
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-c", code])
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    if (code_exit := os.waitstatus_to_exitcode(status)) != 0:
        raise SystemExit(f"{code!r} exited {code_exit}")
    return wall, usage.ru_maxrss / 1024


def _pair(name: str, a: str, b: str, runs: int) -> None:
    _run(a)  # warm the page cache
    _run(b)
    pairs = [(_run(a), _run(b)) for _ in range(runs)]
    wall = statistics.median(run_a[0] - run_b[0] for run_a, run_b in pairs)
    peak = statistics.median(run_a[1] - run_b[1] for run_a, run_b in pairs)
    print(f"{name:<60} +{wall * 1000:6.0f} ms  +{peak:5.1f} MiB")


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    print(f"import cost beside its yardstick, median of {runs} pairs")
    for name, (a, b) in PAIRS.items():
        _pair(name, a, b, runs)
    per_context = subprocess.run(
        [sys.executable, "-c", TLS_PROBE], capture_output=True, text=True, check=True
    ).stdout.strip()
    print(
        f"{'one TLS context with certifi roots (flows.runtime.tls_context)':<60} +{float(per_context):5.2f} MiB"
    )


if __name__ == "__main__":
    main()
