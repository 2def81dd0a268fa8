"""Concurrency across workers and machines: Prefect global concurrency limits.

`thoughtforge up` creates one limit for the runs executing at once and one per agent for its calls
in flight (`stack.concurrency_limits`). Every worker talks to the same server, so the limits hold
across machines. Without `up` (a run on a temporary server) there are no limits to take, and the
runs skip them instead of paying a round trip for nothing.

A slot is a short lease that Prefect renews while its holder works, so a run killed with -9 gives
its slot back within `SLOT_LEASE_SECONDS` (and `up`/`recover` reclaim what a server restart
leaves taken). A run waits for its slot in short attempts, saying for whom, so Ctrl-C or SIGTERM
stops it between two of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from prefect.client.orchestration import get_client
from prefect.concurrency.sync import concurrency
from prefect.exceptions import ObjectNotFound

from thoughtforge.adapters.agents import use_call_slots
from thoughtforge.config import Config
from thoughtforge.core.project import Project, list_projects
from thoughtforge.core.run_lock import is_running
from thoughtforge.flows.runtime.prefect_internals import CONCURRENCY_SLOT, usable
from thoughtforge.stack.concurrency_limits import RUNS_LIMIT, agent_limit

SLOT_LEASE_SECONDS = 60
"""Renewed every half lease while the holder works; what a dead holder keeps at most."""
SLOT_ATTEMPT_SECONDS = 5
"""How long one attempt to take a slot waits: a stopped run stops waiting after at most this."""


class _RunSlot:
    """The run slot this process holds, which a wait for the human gives back."""

    def __init__(self) -> None:
        self.held: AbstractContextManager[object] | None = None
        self.run: tuple[Config, Project | None] | None = None

    def take(self) -> None:
        self.held = _take_slot(RUNS_LIMIT, self._say_why)

    def _say_why(self) -> None:
        if self.run is not None:
            print(f"Waiting for a run slot: {_slot_holders(*self.run)}")

    def give_back(self) -> None:
        if self.held is not None:
            held, self.held = self.held, None
            held.__exit__(None, None, None)


_slot = _RunSlot()


def _take_slot(name: str, on_wait: Callable[[], None]) -> AbstractContextManager[object]:
    """A slot of limit `name`, entered: taken in attempts of `SLOT_ATTEMPT_SECONDS`, so no
    acquisition outlives a stopped run; `on_wait` says why once, when the first attempt fails."""
    waited = False
    while True:
        held = concurrency(
            name,
            occupy=1,
            timeout_seconds=SLOT_ATTEMPT_SECONDS,
            lease_duration=SLOT_LEASE_SECONDS,
            strict=True,
            raise_on_lease_renewal_failure=False,  # a server hiccup must not end the run
        )
        try:
            held.__enter__()
        except TimeoutError:
            if not waited:
                on_wait()
                waited = True
            continue
        return held


def _slot_holders(config: Config, project: Project | None) -> str:
    """Who may hold the run slots, as a waiting run says it: the server's count, and the other
    projects whose run is alive (a live run waiting for its human holds none)."""
    with get_client(sync_client=True) as client:
        limit = client.read_global_concurrency_limit_by_name(RUNS_LIMIT)
    running = [
        listing.project.id
        for listing in list_projects(config)
        if listing.project != project and is_running(listing.project)
    ]
    holders = ", ".join(running) if running else "none here (runs on other machines, or dead)"
    return (
        f"{RUNS_LIMIT} has {limit.active_slots} of {limit.limit} slot(s) taken; runs alive: "
        f"{holders}. `thoughtforge recover` gives back the slots of runs that died."
    )


@contextmanager
def run_slot(config: Config, project: Project | None) -> Iterator[None]:
    """Hold a run slot while the run works, and make its agent calls take their agent's slot.

    Re-entrant within a process: a run that makes its project takes the slot before (`project`
    is None then), so a burst beyond the limit waits instead of being refused.
    A run waiting for the human holds none (`slot_given_back`): a suspended run has no process,
    and a paused one must not keep other projects from running while its human thinks.
    """
    if not _limit_exists(RUNS_LIMIT):
        yield
        return
    _slot.run = (config, project)
    if _slot.held is not None:
        yield
        return
    use_call_slots(_agent_slot)
    _slot.take()
    try:
        yield
    finally:
        _slot.give_back()


def holds_run_slot() -> bool:
    """Whether this process holds a run slot: a project it makes is bounded by the slots."""
    return _slot.held is not None


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


@contextmanager
def _agent_slot(agent: str) -> Iterator[Any]:
    if not _limit_exists(agent_limit(agent)):
        yield
        return
    held = _take_slot(agent_limit(agent), lambda: print(f"Waiting for a slot of agent '{agent}'"))
    try:
        yield
    finally:
        held.__exit__(None, None, None)


_known: dict[str, bool] = {}


def _limit_exists(name: str) -> bool:
    """Asked once per process and limit; none is taken when Prefect changed how a slot is
    held by hand (`prefect_internals`)."""
    if not usable(CONCURRENCY_SLOT):
        return False
    if name not in _known:
        with get_client(sync_client=True) as client:
            try:
                client.read_global_concurrency_limit_by_name(name)
                _known[name] = True
            except ObjectNotFound:
                _known[name] = False
    return _known[name]
