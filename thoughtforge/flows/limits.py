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


class _RunSlot:
    """The run slot this process holds, which a wait for the human gives back."""

    def __init__(self) -> None:
        self.held: AbstractContextManager[object] | None = None

    def take(self) -> None:
        self.held = concurrency(
            RUNS_LIMIT, occupy=1, lease_duration=SLOT_LEASE_SECONDS, strict=True
        )
        self.held.__enter__()

    def give_back(self) -> None:
        if self.held is not None:
            held, self.held = self.held, None
            held.__exit__(None, None, None)


_slot = _RunSlot()


@contextmanager
def run_slot(config: Config) -> Iterator[None]:
    """Hold a run slot while the run works, and make its agent calls take their agent's slot.

    A run waiting for the human holds none (`slot_given_back`): a suspended run has no process,
    and a paused one must not keep other projects from running while its human thinks.
    """
    if not _limit_exists(RUNS_LIMIT):
        yield
        return
    use_call_slots(_agent_slot)
    _slot.take()
    try:
        yield
    finally:
        _slot.give_back()


@contextmanager
def slot_given_back() -> Iterator[None]:
    """Around a wait for the human: the slot is taken again only when the answer arrives (not
    when the run suspends, which ends its process)."""
    if _slot.held is None:
        yield
        return
    _slot.give_back()
    yield
    _slot.take()


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
