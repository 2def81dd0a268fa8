"""The spec's restart rule: a project left in an autonomous phase with no live run is halted.

Its agent subprocess died with it and its partial output is unknown, so it is not re-entered
automatically; the human resumes it. Interactive phases wait for the human and are left alone.
"""

from __future__ import annotations

from thoughtforge.config import Config
from thoughtforge.core.hooks import TransitionHooks
from thoughtforge.core.project import list_projects
from thoughtforge.core.run_lock import is_running
from thoughtforge.core.transition import transition
from thoughtforge.models import AUTONOMOUS_PHASES, HaltReason, Phase


def halt_orphaned_projects(config: Config, hooks: TransitionHooks | None = None) -> list[str]:
    """Halt (server_restart) every project in an autonomous phase with no live run; their ids."""
    halted = []
    for listing in list_projects(config):
        status = listing.status
        if status is None or status.phase not in AUTONOMOUS_PHASES or is_running(listing.project):
            continue
        transition(
            listing.project,
            Phase.HALTED,
            halt_reason=HaltReason.SERVER_RESTART,
            summary=f"Project '{status.project_name or listing.project.id}' — interrupted while "
            f"{status.phase}; the run is gone. Resume to continue.",
            hooks=hooks,
        )
        halted.append(listing.project.id)
    return halted
