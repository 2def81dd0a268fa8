"""A worker on any machine that shares the server and the projects folder: what
`thoughtforge worker` starts and stops.

`up` runs once, beside the server; every other machine runs `thoughtforge worker`. Each worker has
a name (the machine's, by default) and its own records folder under the config's state folder,
`workers/<name>/`, since that folder may be on storage every machine shares: its process records,
logs and pid files never meet another machine's. It has its own warm starter, named in the
worker's environment, so its runs start warm on its own machine.
"""

from __future__ import annotations

import re
import socket
import time
from pathlib import Path

from pydantic import BaseModel

from thoughtforge.errors import ConfigError, ThoughtForgeError
from thoughtforge.stack import local_server
from thoughtforge.stack.api import PrefectApi, PrefectApiError, is_healthy
from thoughtforge.stack.work_pool import WORK_POOL

WORKERS_DIR = "workers"
REGISTER_SECONDS = 60.0
"""How long a new worker has to show in the pool (it starts Python and imports Prefect)."""
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$")


class WorkerStart(BaseModel):
    """What `thoughtforge worker` did."""

    name: str
    records: Path
    started: bool
    """False when this worker was already running."""
    warm_start: str
    """The name of its warm starter."""


def default_name() -> str:
    """The machine's name, as far as a worker's name allows."""
    cleaned = re.sub(r"[^A-Za-z0-9_.-]", "-", socket.gethostname()).strip("-.")
    return cleaned[:63] or "worker"


def records_of(state: Path, name: str) -> Path:
    """The worker's own records folder; a name that could leave it is refused."""
    if not _NAME.match(name):
        raise ConfigError(
            f"worker name {name!r}: use letters, digits, '.', '_' and '-' (at most 63)"
        )
    return state / WORKERS_DIR / name


def start(api_url: str, config_file: Path, records: Path) -> WorkerStart:
    """Start the worker recorded in `records` (named after it) and its warm starter against the
    server at `api_url`, unless they are alive, and wait until the pool lists it."""
    name = records.name
    api = _pool_api(api_url)
    env = local_server.prefect_env(api_url, config_file)
    before = _heartbeat(api, name)
    with local_server.exclusive(records):
        warm_start = local_server.start_warm_starter(env, records)
        started = local_server.start_worker(env, records, warm_start, name)
    if started:
        _wait_until_listed(api, name, records, before)
    return WorkerStart(name=name, records=records, started=started, warm_start=warm_start)


def stop(api_url: str, records: Path) -> local_server.Stopped:
    """Stop the worker recorded in `records`, its starter and its runs, as `down` does."""
    with local_server.exclusive(records):
        return local_server.stop_all(api_url, records)


def _pool_api(api_url: str) -> PrefectApi:
    """The server's API, once it answers and has the pool `up` makes."""
    if not is_healthy(api_url, timeout=5.0):
        raise ThoughtForgeError(
            f"no Prefect server answers at {api_url}: start it with `thoughtforge up` on its "
            "machine, or point server.host/server.port (or --api-url) at it"
        )
    api = PrefectApi(api_url)
    try:
        api.call("GET", f"/work_pools/{WORK_POOL}")
    except PrefectApiError as exc:
        if exc.status != 404:
            raise
        raise ThoughtForgeError(
            f"the server at {api_url} has no work pool '{WORK_POOL}': run `thoughtforge up` "
            "once against it (it makes the pool, the limits and the deployments)"
        ) from None
    return api


def _heartbeat(api: PrefectApi, name: str) -> str | None:
    """When the pool last heard from the worker called `name`, as the server says it."""
    for worker in api.call("POST", f"/work_pools/{WORK_POOL}/workers/filter", {}) or []:
        if worker.get("name") == name:
            return str(worker.get("last_heartbeat_time"))
    return None


def _wait_until_listed(api: PrefectApi, name: str, records: Path, before: str | None) -> None:
    """Until the worker's first heartbeat: a name used before is listed from its last run."""
    deadline = time.monotonic() + REGISTER_SECONDS
    while _heartbeat(api, name) == before:
        if time.monotonic() > deadline:
            raise ThoughtForgeError(
                f"worker {name} did not join the pool '{WORK_POOL}' within "
                f"{REGISTER_SECONDS:.0f} s; see {records / 'worker.log'}"
            )
        time.sleep(0.2)
