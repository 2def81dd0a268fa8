"""The temporary Prefect server a run may start for itself, recorded so it cannot outlive a kill.

With no `PREFECT_API_URL`, Prefect starts a server in a subprocess for the life of the command
and stops it at exit. A command killed with -9 cannot stop it, and it keeps running (and holding
about 195 MB). So the run records it with the project's agents; whoever next takes the project's
run lock ends it, if it is still the same process.
"""

from __future__ import annotations

from prefect.server.api.server import SubprocessASGIServer

from thoughtforge.core import Project, track_process


def track_temporary_server(project: Project) -> None:
    """Record the temporary server this process started, if it runs on one."""
    for server in SubprocessASGIServer._instances.values():
        process = server.server_process
        if process is not None and process.poll() is None:
            track_process(project.dir, process.pid)
