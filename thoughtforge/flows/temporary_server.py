"""The Prefect server this process talks to: the configured one, or a temporary one it started.

With no `PREFECT_API_URL` (and no server from `thoughtforge up`), Prefect starts a server in a
subprocess for the life of the command and stops it at exit. A command killed with -9 cannot stop
it, and it keeps running (and holding about 195 MB). So the run records it with the project's
agents; whoever next takes the project's run lock ends it, if it is still the same process. A
clean exit forgets it just before Prefect stops it (`atexit` runs the later registration first). Its
address is written into a wait record, so a reply from another terminal can reach the run.
"""

from __future__ import annotations

import atexit
import sys
from typing import TYPE_CHECKING

from prefect import runtime
from prefect.settings import PREFECT_API_URL, PREFECT_UI_URL

from thoughtforge.core import Project, track_process, untrack_process

if TYPE_CHECKING:
    from prefect.server.api.server import SubprocessASGIServer

_SERVER_MODULE = "prefect.server.api.server"


def track_temporary_server(project: Project) -> None:
    """Record the temporary server this process started, if it runs on one."""
    for server in _running_temporary_servers():
        if server.server_process is not None:
            track_process(project.dir, server.server_process.pid)
            atexit.register(untrack_process, project.dir, server.server_process.pid)


def api_url_of_this_process() -> str | None:
    """The API this process's runs report to."""
    configured = PREFECT_API_URL.value()
    if configured:
        return configured
    servers = _running_temporary_servers()
    return servers[0].api_url if servers else None


def run_page() -> str | None:
    """The current flow run's page in the Prefect UI (where its Resume button is)."""
    run_id = runtime.flow_run.id
    base = PREFECT_UI_URL.value() or (api_url_of_this_process() or "").removesuffix("/api")
    return f"{base.rstrip('/')}/runs/flow-run/{run_id}" if base and run_id else None


def _running_temporary_servers() -> list[SubprocessASGIServer]:
    """Looked up, never imported: importing Prefect's server costs a flow process 1.6 s and
    100 MB, and a process that never loaded it cannot have started a temporary server."""
    module = sys.modules.get(_SERVER_MODULE)
    if module is None:
        return []
    return [
        server
        for server in module.SubprocessASGIServer._instances.values()
        if server.server_process is not None and server.server_process.poll() is None
    ]
