"""The process work pool `thoughtforge up` creates, so the deployments in `prefect.yaml` have a
pool to run on before the first worker starts."""

from __future__ import annotations

from prefect import get_client
from prefect.client.schemas.actions import WorkPoolCreate
from prefect.exceptions import ObjectAlreadyExists
from prefect.workers.process import ProcessWorker


def create_work_pool(name: str) -> bool:
    """Create the pool unless it exists; False when it was already there."""
    pool = WorkPoolCreate(
        name=name,
        type="process",
        base_job_template=ProcessWorker.get_default_base_job_template(),
        description="ThoughtForge flow runs, one process each (created by `thoughtforge up`).",
    )
    with get_client(sync_client=True) as client:
        try:
            client.create_work_pool(pool)
        except ObjectAlreadyExists:
            return False
    return True
