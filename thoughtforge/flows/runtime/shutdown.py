"""A flow run told to stop (SIGTERM, Ctrl-C) stops gracefully: the agent call in flight may finish
and is recorded, then the run ends (`adapters.agents.graceful_stop`). A run Prefect is cancelling
is not held back: its control channel says so before the SIGTERM comes (a Prefect internal: without
it, a cancel waits like a stop; see `prefect_internals`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from thoughtforge.adapters.agents.graceful_stop import graceful_stop
from thoughtforge.config import Config
from thoughtforge.flows.runtime.prefect_internals import CONTROL_LISTENER, usable


@contextmanager
def stopping_gracefully(config: Config) -> Iterator[None]:
    with graceful_stop(config.agents.call_timeout_seconds, stop_now=_cancelling):
        yield


def _cancelling() -> bool:
    if not usable(CONTROL_LISTENER):
        return False
    from prefect._internal.control_listener import get_intent

    return get_intent() is not None
