"""Where a project's run is, with what only Prefect knows added to what the files say: the one
answer every door and every refusal uses.

The files say most of it (`core.project_view`: the lock held, a start claimed, a wait recorded);
only Prefect knows a run it has scheduled or is starting and has not yet touched the project, and
whether a claimed run already ended. Prefect adds to the files' answer and never takes from it:
with no server, or one that fails, the files' answer stands.
"""

from __future__ import annotations

from thoughtforge.actions.composer import Composer, composer_for
from thoughtforge.actions.restoring import resting_words, restored_point
from thoughtforge.config import Config
from thoughtforge.core.course_claim import release
from thoughtforge.core.project import Project
from thoughtforge.core.project_view import ProjectView, read_view, with_prefect_run
from thoughtforge.stack.api import ask_prefect

ENDED_STATES = frozenset({"COMPLETED", "FAILED", "CRASHED", "CANCELLED", "CANCELLING"})
"""A claimed run in one of these states will never take the project's lock."""


def project_view(config: Config, project: Project) -> ProjectView:
    """The project's view (`core.project_view`), with Prefect's word on its runs: a claim whose
    run already ended (it failed before taking the lock) is dropped, and a run Prefect has busy
    on the project is named."""
    view = read_view(project)
    claim = view.claim
    if claim is not None and claim.flow_run_id is not None:
        run_id = claim.flow_run_id
        state = ask_prefect(config, lambda api: api.state_of(run_id), None)
        if state in ENDED_STATES:
            release(project, claim)
            view = read_view(project)
    if not view.locked:
        view = with_prefect_run(view, _busy_run(config, project))
    return view


def composer_of(view: ProjectView) -> Composer:
    """What the person can do now, from the project's view: nothing while another change of
    its course holds it (which, whose, and how it clears); a project idle after a restore
    says what was restored and what Start does, not that a run stopped mid-phase."""
    composer = composer_for(view.status, view.waiting, view.busy, view.claim)
    if view.course_held:  # a revision, a rollback or an archive moves it right now
        return composer.model_copy(update={"actions": [], "note": view.claim_note})
    if any(action.name == "start" for action in composer.actions):
        point = restored_point(view)
        if point is not None:
            note = f"Restored {point}: {resting_words(view)}"
            return composer.model_copy(update={"note": note})
    return composer


def current_composer(config: Config, project: Project) -> Composer:
    """The composer for the project as its files and its runs are now."""
    return composer_of(project_view(config, project))


def run_busy(config: Config, project: Project) -> bool:
    """A run holds the project's lock, or Prefect has one scheduled, starting or re-entering."""
    return project_view(config, project).busy


def working_run(config: Config, project: Project) -> str | None:
    """The name of the run working on the project (or about to), else None: Prefect's name for
    it when Prefect knows it (asked even when the lock is held: the name beats a pid)."""
    view = project_view(config, project)
    named = view.prefect_run or (_busy_run(config, project) if view.locked else None)
    if named is not None:
        return named
    if view.claim is not None:
        return view.claim.run_name or "a run being started"
    if view.locked:
        return f"the run in {view.holder}" if view.holder else "a run in another process"
    return None


def _busy_run(config: Config, project: Project) -> str | None:
    return ask_prefect(config, lambda api: api.busy_run(project), None)
