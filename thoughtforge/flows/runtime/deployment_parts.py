"""What only Prefect can say about a deployment: its flow's name and parameter schema, and the
job template of the process worker. `up` asks for these only when it (re)builds a deployment or
makes the work pool, so an `up` with nothing to change never imports Prefect."""

from __future__ import annotations

import importlib
from typing import Any

from prefect.flows import Flow
from prefect.utilities.callables import parameter_schema
from prefect.workers.process import ProcessWorker

from thoughtforge.flows.runtime.prefect_internals import JOB_TEMPLATE, PARAMETER_SCHEMA, usable


class FlowParts:
    """A flow named by a module-path entrypoint (`package.module.function`)."""

    def __init__(self, entrypoint: str) -> None:
        path, _, attribute = entrypoint.rpartition(".")
        module = importlib.import_module(path)
        flow = getattr(module, attribute)
        if not isinstance(flow, Flow):
            raise TypeError(f"{entrypoint} is not a Prefect flow")
        self.name: str = flow.name
        self.parameter_schema: dict[str, Any] = (
            parameter_schema(flow).model_dump(exclude_unset=True)
            if usable(PARAMETER_SCHEMA)
            else {}
        )


def process_job_template() -> dict[str, Any]:
    """The base job template Prefect's process worker starts its runs with; empty (the worker
    then uses its own) when Prefect changed it."""
    if not usable(JOB_TEMPLATE):
        return {}
    return ProcessWorker.get_default_base_job_template()
