"""The Prefect internals `up` and `down` use: the warm starter's engine, the deployments' schema
and job template, and the run id in a worker's environment."""

from __future__ import annotations

import importlib.util
import uuid
from pathlib import Path
from types import SimpleNamespace

from thoughtforge.flows.runtime.prefect_internals.shape import Changed, Internal, attribute

WARM_START = "warm-start-engine"
RUN_ENVIRONMENT = "run-environment"
PARAMETER_SCHEMA = "parameter-schema"
JOB_TEMPLATE = "job-template"


def _warm_start() -> None:
    spec = importlib.util.find_spec("prefect.engine")
    if spec is None or spec.origin is None:
        raise Changed("prefect.engine is gone")
    if 'if __name__ == "__main__":' not in Path(spec.origin).read_text(encoding="utf-8"):
        raise Changed("prefect.engine no longer runs as `python -m prefect.engine`")
    attribute("prefect.context", "refresh_global_settings_context")


def _run_environment() -> None:
    configuration = attribute("prefect.workers.base", "BaseJobConfiguration")
    run_id = uuid.uuid4()
    environment = configuration._base_flow_run_environment(SimpleNamespace(id=run_id))
    if environment.get("PREFECT__FLOW_RUN_ID") != str(run_id):
        raise Changed("the worker no longer names the run in PREFECT__FLOW_RUN_ID")


def _parameter_schema() -> None:
    schema = attribute("prefect.utilities.callables", "parameter_schema")

    def sample(brain_dump: str = "") -> None: ...

    properties = schema(sample).model_dump(exclude_unset=True).get("properties", {})
    if "brain_dump" not in properties:
        raise Changed("parameter_schema no longer describes a function's parameters")


def _job_template() -> None:
    worker = attribute("prefect.workers.process", "ProcessWorker")
    template = worker.get_default_base_job_template()
    variables = template.get("variables", {}).get("properties", {})
    configured = template.get("job_configuration", {})
    for name in ("command", "working_dir"):
        if name not in variables or name not in configured:
            raise Changed(f"the process worker's job template has no {name}")


UP_AND_DOWN: tuple[Internal, ...] = (
    Internal(
        WARM_START,
        "prefect.engine run as __main__ (runpy), prefect.context.refresh_global_settings_context",
        "flows/runtime/warm_start.py",
        "deployed runs fork from a process that imported Prefect and the flows once",
        "every deployed run starts cold (`prefect flow-run execute`): about 3 s more",
        _warm_start,
    ),
    Internal(
        RUN_ENVIRONMENT,
        "PREFECT__FLOW_RUN_ID in a run's environment, read from /proc/<pid>/environ",
        "stack/local_server.py (`down`)",
        "`down` finds which flow runs its processes were working on",
        "`down` cannot name the runs it stopped, nor mark them Cancelled",
        _run_environment,
    ),
    Internal(
        PARAMETER_SCHEMA,
        "prefect.utilities.callables.parameter_schema",
        "flows/runtime/deployment_parts.py (`up`)",
        "`up` deploys through the API, without `prefect deploy`'s seconds of imports",
        "deployments have no parameter schema: the UI offers no form for a new run's parameters",
        _parameter_schema,
    ),
    Internal(
        JOB_TEMPLATE,
        "prefect.workers.process.ProcessWorker.get_default_base_job_template",
        "flows/runtime/deployment_parts.py (`up`)",
        "`up` makes the process work pool with its job template (command, working_dir)",
        "the pool is made with an empty template, which the worker fills with its own",
        _job_template,
    ),
)
