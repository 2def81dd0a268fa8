"""Waiting for the person at conversation speed, holding nothing once they have gone away.

A deployment's run first *holds*: it pauses, its process stays and asks Prefect every
`HOLD_POLL_SECONDS` whether the answer came, so an answer given within `human.hold_seconds`
reaches the agent in well under a second. When nobody answers in that window the run *suspends*:
its process exits and the worker starts the run again once the answer comes. The pause's timeout
on the server is the whole wait, so Prefect never fails a run for a short hold; and since Prefect
cannot suspend a paused run, the run takes itself back to running first, then suspends under a key
of its own (`away_key`), which its re-entry uses to collect the answer.

A held run told to stop (SIGTERM or SIGINT: `thoughtforge down`, a worker or machine shutting
down) suspends too,
so the answer given after the next `up` still reaches it; a run cancelled from Prefect is not held
back.

The form is the same either way: the Prefect UI's Resume, the CLI and the workbench answer it alike.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, TypeVar

from prefect.client.orchestration import get_client
from prefect.context import FlowRunContext
from prefect.exceptions import TerminationSignal
from prefect.flow_runs import suspend_flow_run
from prefect.input import RunInput
from prefect.input.actions import read_flow_run_input
from prefect.input.run_input import keyset_from_paused_state
from prefect.states import Paused, Running, State
from prefect.utilities.engine import propose_state_sync

from thoughtforge.flows.runtime.prefect_internals import LEAVE_PAUSE, usable

HOLD_POLL_SECONDS = 0.25
"""How soon a run waiting in its process (held, or paused in-process) sees its answer."""
InputT = TypeVar("InputT", bound=RunInput)
_hold_seconds: ContextVar[float] = ContextVar("hold_seconds", default=0.0)


@contextmanager
def holding_for(seconds: float) -> Iterator[None]:
    """Waits of this flow run hold their process for `seconds` (`human.hold_seconds`)."""
    token = _hold_seconds.set(seconds)
    try:
        yield
    finally:
        _hold_seconds.reset(token)


def hold(form: type[InputT], key: str, wait_seconds: int) -> InputT | None:
    """The answer if it comes within the hold; None when it did not (the run is running again,
    ready to `collect`), or when there is no hold."""
    if _hold_seconds.get() <= 0 or not usable(LEAVE_PAUSE):
        return None
    context = FlowRunContext.get()
    if context is None or context.flow_run is None:
        raise RuntimeError("only a flow run can wait for the person")
    run_id = context.flow_run.id
    paused: State[Any] = Paused(timeout_seconds=wait_seconds, reschedule=False, pause_key=key)
    keyset = keyset_from_paused_state(paused)
    paused.state_details.run_input_keyset = {str(key): value for key, value in keyset.items()}
    with get_client(sync_client=True) as client:
        state = propose_state_sync(client=client, state=paused, flow_run_id=run_id)
        if not state.is_paused():
            raise RuntimeError(f"the run could not pause: Prefect answered {state.type.value}")
        form.save(keyset)
        deadline = time.monotonic() + _hold_seconds.get()
        try:
            while time.monotonic() < deadline:
                time.sleep(HOLD_POLL_SECONDS)
                current = client.read_flow_run(run_id).state
                if current is not None and current.is_running():
                    return form.load(keyset)  # type: ignore[return-value]  # sync: not a coroutine
        except (TerminationSignal, KeyboardInterrupt):
            _stopping()
            current = client.read_flow_run(run_id).state
            if current is None or not current.is_paused():
                raise  # cancelled (the state says Cancelling), or answered: not ours to keep
        propose_state_sync(client=client, state=Running(), flow_run_id=run_id)
    if read_flow_run_input(keyset["response"], flow_run_id=run_id) is not None:
        # answered in the instant between the last look and now
        return form.load(keyset)  # type: ignore[return-value]  # sync: not a coroutine
    return None


def _stopping() -> None:
    """Told to stop while holding: once is enough (the worker and the starter may both say it),
    and whoever read this process's output is likely stopping too. A write into its closed pipe
    would end the run before it suspends (Prefect's console logging exits on a broken pipe), so
    the output goes nowhere from here; the run's log still reaches the server."""
    for told in (signal.SIGTERM, signal.SIGINT):
        signal.signal(told, signal.SIG_IGN)
    with Path(os.devnull).open("wb") as nowhere:
        for stream in (1, 2):
            os.dup2(nowhere.fileno(), stream)


def collect(form: type[InputT], key: str, wait_seconds: int) -> InputT:
    """Suspend under the away key (this ends the process); the run's re-entry after the answer
    comes back here, and gets the answer."""
    return suspend_flow_run(form, key=away_key(key), timeout=wait_seconds)


def away_key(key: str) -> str:
    return f"{key}-away"
