"""Concurrency across workers and machines: Prefect global concurrency limits.

`thoughtforge up` creates one limit for the pipeline and polish runs executing at once
(`concurrency.max_parallel_runs`) and one per agent for its calls in flight
(`concurrency.max_parallel_agent_calls`). Every worker talks to the same server, so the limits hold
across machines. Without `up` (a run on a temporary server) there are no limits to take, and the
runs skip them instead of paying a round trip for nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext

from prefect import get_client
from prefect.client.schemas.actions import (
    GlobalConcurrencyLimitCreate,
    GlobalConcurrencyLimitUpdate,
)
from prefect.concurrency.sync import concurrency
from prefect.exceptions import ObjectNotFound

from thoughtforge.adapters.agents import use_call_slots
from thoughtforge.config import Config

RUNS_LIMIT = "thoughtforge-runs"
SLOT_LEASE_SECONDS = 3600


def agent_limit(agent: str) -> str:
    """The limit on calls to one agent."""
    return f"thoughtforge-agent-{agent}"


def create_limits(config: Config) -> None:
    """Create or update the limits from config (what `up` does)."""
    wanted = {RUNS_LIMIT: config.concurrency.max_parallel_runs}
    for agent in config.agents.available:
        wanted[agent_limit(agent)] = config.concurrency.max_parallel_agent_calls
    with get_client(sync_client=True) as client:
        for name, limit in wanted.items():
            try:
                client.read_global_concurrency_limit_by_name(name)
            except ObjectNotFound:
                client.create_global_concurrency_limit(
                    GlobalConcurrencyLimitCreate(name=name, limit=limit)
                )
            else:
                client.update_global_concurrency_limit(
                    name, GlobalConcurrencyLimitUpdate(limit=limit)
                )


@contextmanager
def run_slot(config: Config) -> Iterator[None]:
    """Hold a run slot for the length of a run's work (released while it is suspended, since its
    process is gone), and make its agent calls take their agent's slot."""
    if not _limit_exists(RUNS_LIMIT):
        yield
        return
    use_call_slots(_agent_slot)
    with concurrency(RUNS_LIMIT, occupy=1, lease_duration=SLOT_LEASE_SECONDS, strict=True):
        yield


def _agent_slot(agent: str) -> AbstractContextManager[object]:
    if not _limit_exists(agent_limit(agent)):
        return nullcontext()
    return concurrency(agent_limit(agent), occupy=1, lease_duration=SLOT_LEASE_SECONDS, strict=True)


_known: dict[str, bool] = {}


def _limit_exists(name: str) -> bool:
    """Asked once per process and limit."""
    if name not in _known:
        with get_client(sync_client=True) as client:
            try:
                client.read_global_concurrency_limit_by_name(name)
                _known[name] = True
            except ObjectNotFound:
                _known[name] = False
    return _known[name]
