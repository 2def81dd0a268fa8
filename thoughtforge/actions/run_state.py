"""Whether a run works on a project, and which: the one answer every door and every refusal uses.

The files say most of it (`core.project_view`: the lock held, a start claimed, a wait recorded);
only Prefect knows a run it has scheduled or is starting and has not yet touched the project, and
whether a claimed run already ended. Prefect adds to the files' answer and never takes from it:
with no server, or one that fails, the files' answer stands.
"""

from __future__ import annotations

from thoughtforge.actions.composer import Composer, composer_for
from thoughtforge.config import Config
from thoughtforge.core import Project, current_wait, is_running
from thoughtforge.core.run_lock import LOCK_FILE
from thoughtforge.core.run_start import Starting, clear_start
from thoughtforge.core.run_start import starting as standing_claim
from thoughtforge.server.api import ask_prefect

ENDED_STATES = frozenset({"COMPLETED", "FAILED", "CRASHED", "CANCELLED", "CANCELLING"})
"""A claimed run in one of these states will never take the project's lock."""


def current_composer(config: Config, project: Project) -> Composer:
    """The composer for the project as its files and its runs are now."""
    claim = run_on_its_way(config, project)
    return composer_for(
        project.status(), current_wait(project.dir), run_busy(config, project), claim
    )


def run_on_its_way(config: Config, project: Project) -> Starting | None:
    """The standing claim of a run asked for (`core.run_start`), unless Prefect says that run
    already ended (it failed before taking the lock): then the claim is dropped."""
    claim = standing_claim(project)
    if claim is None or claim.flow_run_id is None:
        return claim
    run_id = claim.flow_run_id
    state = ask_prefect(config, lambda api: api.state_of(run_id), None)
    if state in ENDED_STATES and standing_claim(project) == claim:
        clear_start(project)
        return None
    return claim


def run_busy(config: Config, project: Project) -> bool:
    """A run holds the project's lock, or Prefect has one scheduled, starting or re-entering."""
    return is_running(project) or _prefect_busy_run(config, project) is not None


def working_run(config: Config, project: Project) -> str | None:
    """The name of the run working on the project (or about to), else None."""
    named = _prefect_busy_run(config, project)
    if named is not None:
        return named
    claim = standing_claim(project)
    if claim is not None:
        return claim.run_name or "a run being started"
    if is_running(project):
        holder = _lock_holder(project)
        return f"the run in {holder}" if holder else "a run in another process"
    return None


def _prefect_busy_run(config: Config, project: Project) -> str | None:
    return ask_prefect(config, lambda api: api.busy_run(project), None)


def _lock_holder(project: Project) -> str:
    try:
        return (project.dir / LOCK_FILE).read_text().strip()
    except OSError:
        return ""
