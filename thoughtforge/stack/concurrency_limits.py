"""The global concurrency limits `up` keeps on the server, set from config through the REST API.

One limit bounds the pipeline and polish runs executing at once (`concurrency.max_parallel_runs`)
and one per agent its calls in flight (`concurrency.max_parallel_agent_calls`); runs take their
slots in `flows.runtime.limits`. The server keeps slot leases in memory: after a restart a dead
run's slot would be taken for good, so `up` and `recover` give back every slot beyond what live runs
can hold (a live run holds its project's run lock).
"""

from __future__ import annotations

from thoughtforge.config import Config
from thoughtforge.core.project import list_projects
from thoughtforge.core.run_lock import is_running
from thoughtforge.stack.api import PrefectApi, PrefectApiError

RUNS_LIMIT = "thoughtforge-runs"


def agent_limit(agent: str) -> str:
    """The limit on calls to one agent."""
    return f"thoughtforge-agent-{agent}"


def set_limits(api: PrefectApi, config: Config) -> None:
    """Create the limits from config, or set their size, then reclaim dead runs' slots."""
    for name, size in wanted_limits(config).items():
        if _read(api, name) is None:
            api.call("POST", "/v2/concurrency_limits/", {"name": name, "limit": size})
        else:
            api.call("PATCH", f"/v2/concurrency_limits/{name}", {"limit": size})
    reclaim_slots(api, config)


def reclaim_slots(api: PrefectApi, config: Config) -> dict[str, int]:
    """Give back the slots no live run can hold: each limit's taken slots are cut to the number
    of projects whose run is alive (a run holds one run slot and, at a time, one agent slot).
    Returns the slots given back, by limit."""
    live = sum(1 for listing in list_projects(config) if is_running(listing.project))
    reclaimed: dict[str, int] = {}
    for name in wanted_limits(config):
        limit = _read(api, name)
        if limit is not None and limit["active_slots"] > live:
            api.call("PATCH", f"/v2/concurrency_limits/{name}", {"active_slots": live})
            reclaimed[name] = limit["active_slots"] - live
    return reclaimed


def wanted_limits(config: Config) -> dict[str, int]:
    """Each limit's name and size, from config."""
    wanted = {RUNS_LIMIT: config.concurrency.max_parallel_runs}
    for agent in config.agents.available:
        wanted[agent_limit(agent)] = config.concurrency.max_parallel_agent_calls
    return wanted


def _read(api: PrefectApi, name: str) -> dict[str, int] | None:
    try:
        return dict(api.call("GET", f"/v2/concurrency_limits/{name}"))
    except PrefectApiError as exc:
        if exc.status == 404:
            return None
        raise
