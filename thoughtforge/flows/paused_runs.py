"""Find the paused flow run of a project and hand it the human's input."""

from __future__ import annotations

import time
from typing import Any
from uuid import UUID

from prefect import get_client
from prefect.client.schemas.filters import (
    FlowRunFilter,
    FlowRunFilterState,
    FlowRunFilterStateType,
    FlowRunFilterTags,
)
from prefect.client.schemas.objects import FlowRun, StateType
from prefect.client.schemas.sorting import FlowRunSort
from prefect.exceptions import ObjectNotFound
from prefect.flow_runs import resume_flow_run

from thoughtforge.errors import ThoughtForgeError

SCHEMA_WAIT_SECONDS = 30
_POLL_SECONDS = 0.2


def project_tag(project_id: str) -> str:
    """Every flow run of a project carries this tag, so the CLI can find it."""
    return f"project:{project_id}"


def find_paused_run(project_id: str) -> UUID | None:
    """The newest paused flow run tagged with the project, if any."""
    run = _paused_run(project_id)
    return run.id if run else None


def send_input(project_id: str, run_input: dict[str, Any]) -> UUID | None:
    """Resume the project's paused run with `run_input`; None when no run is waiting.

    A run is marked paused a moment before it saves the schema of the input it waits for, and
    Prefect rejects a resume sent in between, so this waits for the schema first. Input that does
    not fit the schema is refused with Prefect's reason, and the run stays paused.
    """
    run = _paused_run(project_id)
    if run is None:
        return None
    _wait_for_schema(run)
    try:
        resume_flow_run(run.id, run_input=run_input)
    except RuntimeError as exc:
        raise ThoughtForgeError(
            f"the paused run of {project_id} refused the input: {exc}"
        ) from None
    return run.id


def _paused_run(project_id: str) -> FlowRun | None:
    run_filter = FlowRunFilter(
        tags=FlowRunFilterTags(all_=[project_tag(project_id)]),
        state=FlowRunFilterState(type=FlowRunFilterStateType(any_=[StateType.PAUSED])),
    )
    with get_client(sync_client=True) as client:
        runs = client.read_flow_runs(
            flow_run_filter=run_filter, sort=FlowRunSort.START_TIME_DESC, limit=1
        )
    return runs[0] if runs else None


def _wait_for_schema(run: FlowRun) -> None:
    keyset = run.state.state_details.run_input_keyset if run.state else None
    if not keyset:
        return
    deadline = time.monotonic() + SCHEMA_WAIT_SECONDS
    with get_client(sync_client=True) as client:
        while True:
            try:
                client.read_flow_run_input(run.id, keyset["schema"])
                return
            except ObjectNotFound:
                if time.monotonic() > deadline:
                    raise ThoughtForgeError(
                        f"flow run {run.id} is paused but never published its input form"
                    ) from None
                time.sleep(_POLL_SECONDS)
