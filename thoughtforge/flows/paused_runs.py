"""Find the paused flow run of a project and hand it the human's input."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from prefect import get_client
from prefect.client.schemas.filters import (
    FlowRunFilter,
    FlowRunFilterState,
    FlowRunFilterStateType,
    FlowRunFilterTags,
)
from prefect.client.schemas.objects import StateType
from prefect.client.schemas.sorting import FlowRunSort
from prefect.flow_runs import resume_flow_run


def project_tag(project_id: str) -> str:
    """Every flow run of a project carries this tag, so the CLI can find it."""
    return f"project:{project_id}"


def find_paused_run(project_id: str) -> UUID | None:
    run_filter = FlowRunFilter(
        tags=FlowRunFilterTags(all_=[project_tag(project_id)]),
        state=FlowRunFilterState(type=FlowRunFilterStateType(any_=[StateType.PAUSED])),
    )
    with get_client(sync_client=True) as client:
        runs = client.read_flow_runs(
            flow_run_filter=run_filter, sort=FlowRunSort.START_TIME_DESC, limit=1
        )
    return runs[0].id if runs else None


def send_input(project_id: str, run_input: dict[str, Any]) -> UUID | None:
    """Resume the project's paused run with `run_input`; None when no run is waiting."""
    run_id = find_paused_run(project_id)
    if run_id is not None:
        resume_flow_run(run_id, run_input=run_input)
    return run_id
