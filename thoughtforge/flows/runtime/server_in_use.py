"""The Prefect server this process talks to: the configured one, or a temporary one the command
started (`stack.temporary_server`).

A command killed with -9 cannot stop its temporary server, which keeps running (and holding its
memory). So the run records it with the project's agents; whoever next takes the project's run
lock ends it, if it is still the same process. A clean exit forgets it just before the server is
stopped (`atexit` runs the later registration first). The API's address is written into a wait
record, so an answer from another terminal can reach the run.
"""

from __future__ import annotations

import atexit

from prefect import runtime
from prefect.settings import PREFECT_API_URL, PREFECT_UI_URL

from thoughtforge.core.processes import track_process, untrack_process
from thoughtforge.core.project import Project
from thoughtforge.stack.temporary_server import temporary_server_pid


def track_temporary_server(project: Project) -> None:
    """Record the temporary server this process started, if it runs on one."""
    pid = temporary_server_pid()
    if pid is not None:
        track_process(project.dir, pid)
        atexit.register(untrack_process, project.dir, pid)


def api_url_of_this_process() -> str | None:
    """The API this process's runs report to."""
    return PREFECT_API_URL.value() or None


def run_page() -> str | None:
    """The current flow run's page in the Prefect UI (where its Resume button is)."""
    run_id = runtime.flow_run.id
    base = PREFECT_UI_URL.value() or (api_url_of_this_process() or "").removesuffix("/api")
    return f"{base.rstrip('/')}/runs/flow-run/{run_id}" if base and run_id else None
