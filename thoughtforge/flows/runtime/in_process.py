"""A flow run in the CLI's own process, made first and then run, as a worker runs a deployment's.

Calling a flow makes its run from parameters Prefect serialises with FastAPI's `jsonable_encoder`:
importing FastAPI for it made the CLI's process larger and slower (bench/bench_import_costs.py
measures by how much). ThoughtForge's
flows take plain values (strings, booleans), which the run's record takes as they are. The run
beats no heartbeat (`without_heartbeats`).
"""

from __future__ import annotations

from typing import TypeVar, cast

from prefect.client.orchestration import get_client
from prefect.flows import Flow
from prefect.states import Pending

from thoughtforge.flows.runtime.heartbeats import without_heartbeats
from thoughtforge.flows.runtime.prefect_internals import RUN_FLOW, usable

R = TypeVar("R")


def run_here(flow: Flow[..., R], **parameters: str | bool) -> R:
    """Run `flow` to its end in this process; its return value, as calling it would give."""
    if not usable(RUN_FLOW):
        with without_heartbeats():
            return flow(**parameters)
    from prefect.flow_engine import run_flow  # loads `prefect.main`: only a process that runs

    with without_heartbeats():
        with get_client(sync_client=True) as client:
            flow_run = client.create_flow_run(flow, parameters=parameters, state=Pending())
        return cast(R, run_flow(flow, flow_run=flow_run, parameters=parameters))
