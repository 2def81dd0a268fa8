"""The work pool `up` makes on a real Prefect server."""

from __future__ import annotations

from thoughtforge.flows.runtime.deployment_parts import process_job_template
from thoughtforge.stack.api import PrefectApi
from thoughtforge.stack.work_pool import create_work_pool


def test_the_pool_is_made_once_with_the_process_workers_job_template(
    prefect_api_url: str,
) -> None:
    api = PrefectApi(prefect_api_url)
    assert create_work_pool(api, process_job_template, "pool-test") is True
    assert create_work_pool(api, process_job_template, "pool-test") is False
    pool = api.call("GET", "/work_pools/pool-test")
    assert pool["type"] == "process"
    assert "command" in pool["base_job_template"]["job_configuration"]
