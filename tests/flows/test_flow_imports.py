"""What a flow process loads: a run re-entered after every answer imports the pipeline, so nothing
of Prefect's server (FastAPI, SQLAlchemy) nor pybars's grammar may come with it (their cost:
bench/bench_import_costs.py).

The flows import Prefect's parts from their own modules (`prefect.flows`, `prefect.tasks`, ...):
`from prefect import flow` loads `prefect.main`, which sets up logging at import (and more work
at exit); Prefect's engine loads it when a run starts, so a module that
only defines flows need not."""

from __future__ import annotations

import subprocess
import sys


def test_the_pipeline_loads_no_prefect_server_no_pybars_and_no_prefect_main() -> None:
    probe = (
        "import sys, thoughtforge.flows.pipeline; "
        "print(sorted(m for m in ('prefect.server.api.server', 'pybars', 'sqlalchemy', 'fastapi', "
        "'prefect.main') if m in sys.modules))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert loaded == "[]"
