"""The process work pool `up` creates, so the deployments have a pool before the first worker."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from thoughtforge.stack.api import PrefectApi, PrefectApiError

WORK_POOL = "thoughtforge"


def create_work_pool(
    api: PrefectApi, job_template: Callable[[], dict[str, Any]], name: str = WORK_POOL
) -> bool:
    """Create the pool unless it exists; False when it was already there. `job_template` gives
    Prefect's process worker's template (`flows.runtime.deployment_parts`, handed in by the CLI so
    this module imports no Prefect), asked only when the pool is made."""
    try:
        api.call("GET", f"/work_pools/{name}")
        return False
    except PrefectApiError as exc:
        if exc.status != 404:
            raise
    pool = {
        "name": name,
        "type": "process",
        "base_job_template": job_template(),
        "description": "ThoughtForge flow runs, one process each (created by `up`).",
    }
    try:
        api.call("POST", "/work_pools/", pool)
    except PrefectApiError as exc:
        if exc.status != 409:  # a worker started meanwhile made it
            raise
        return False
    return True
