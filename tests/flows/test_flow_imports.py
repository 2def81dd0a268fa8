"""What a flow process loads: a run re-entered after every answer imports the pipeline, so nothing
of Prefect's server (FastAPI, SQLAlchemy, 1.6 s) nor pybars's grammar (0.45 s) may come with it."""

from __future__ import annotations

import subprocess
import sys


def test_importing_the_pipeline_loads_neither_the_prefect_server_nor_pybars() -> None:
    probe = (
        "import sys, thoughtforge.flows.pipeline; "
        "print(sorted(m for m in ('prefect.server.api.server', 'pybars', 'sqlalchemy', 'fastapi') "
        "if m in sys.modules))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert loaded == "[]"
