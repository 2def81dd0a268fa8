"""Projects a dead run left in an autonomous phase (distilling, building, polishing), halted
`server_restart` so the person can resume them: what `up`, `worker`, `recover` and `server` do
first, before any new run could take such a project for a live one."""

from __future__ import annotations

from thoughtforge.config import Config
from thoughtforge.core.orphans import halt_orphaned_projects


def halt_orphans(config: Config) -> list[str]:
    """The ids of the projects halted now (each with a notification)."""
    return halt_orphaned_projects(config)
