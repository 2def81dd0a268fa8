"""The process work pool `up` creates, so the deployments have a pool before the first worker."""

from __future__ import annotations

from thoughtforge.server.api import PrefectApi, PrefectApiError

WORK_POOL = "thoughtforge"


def create_work_pool(api: PrefectApi, name: str = WORK_POOL) -> bool:
    """Create the pool unless it exists; False when it was already there. Prefect's process
    worker's job template is only imported the first time, when the pool is made."""
    try:
        api.call("GET", f"/work_pools/{name}")
        return False
    except PrefectApiError as exc:
        if exc.status != 404:
            raise
    from thoughtforge.flows.deployment_parts import process_job_template

    pool = {
        "name": name,
        "type": "process",
        "base_job_template": process_job_template(),
        "description": "ThoughtForge flow runs, one process each (created by `up`).",
    }
    try:
        api.call("POST", "/work_pools/", pool)
    except PrefectApiError as exc:
        if exc.status != 409:  # a worker started meanwhile made it
            raise
        return False
    return True
