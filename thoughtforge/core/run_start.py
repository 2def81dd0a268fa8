"""A run on its way: from the moment someone asks for one (New Project, Start, an answer that
wakes a suspended run) until it takes the project's run lock or fails.

Between the request and the lock a run has no process on the project yet (the worker is still
starting it), so neither the lock nor the wait says anything, and a second request would make a
second run that fails on the lock. The project's claim (`core.course_claim`) fills that gap: of
two requests at once one claims it and the other is refused before any run is made; the claim is
kept for the run asked for, and the run removes it when it takes the lock.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from thoughtforge.core.course_claim import (
    Claim,
    Course,
    ProjectClaimed,
    RunAlreadyStarting,
    claimed,
    held_words,
    keep,
    standing_claim,
    take_claim,
)
from thoughtforge.core.project import Project
from thoughtforge.core.run_lock import is_running


class StartClaim:
    """A claim held for the length of a `with` block (`claimed_start`): kept past it only when
    the block says the run it was made for is on its way (`keep`)."""

    def __init__(self, project: Project, claim: Claim) -> None:
        self.project = project
        self.claim = claim

    def keep(self, flow_run_id: str | None = None, run_name: str | None = None) -> Claim | None:
        """The run was asked for (its id and name, when the server made it), or an answer
        handed to a suspended run that wakes: the claim stands until that run takes the lock.
        The claim as kept (None when it is no longer the project's)."""
        return keep(self.project, self.claim, flow_run_id, run_name)


@contextmanager
def claimed_start(
    project: Project, why: Course, *, handed: Claim | None = None
) -> Iterator[StartClaim]:
    """Claim the project for a run (refused with `RunAlreadyStarting` while a run holds the
    lock, or `ProjectClaimed` while anything else holds the claim) for the block; at its end,
    or on any error in it, the claim goes unless kept. `handed` (a revision's claim) becomes
    the run's in one step, so no other start slips in between."""
    refuse_while_running(project)
    with claimed(project, why, handed=handed) as claim:
        yield StartClaim(project, claim)


def claim_start(project: Project, why: Course) -> Claim:
    """The claim of a run about to be asked for, held until released or taken over (a test's,
    or a caller's that keeps it whatever happens)."""
    refuse_while_running(project)
    return take_claim(project, why)


def refuse_while_running(project: Project) -> None:
    if is_running(project):
        raise RunAlreadyStarting(f"project {project.id} is already being run")


def refuse_beside_another(project: Project, flow_run_id: str | None) -> None:
    """For a run arriving on the project (say, one `prefect deployment run` made while the page's
    run was starting, or while a rollback moves the project): refused when the claim is anything
    but this run's, before it takes anything."""
    claim = standing_claim(project)
    if claim is None:
        return
    if not claim.for_a_run:
        raise ProjectClaimed(held_words(project, claim))
    if claim.flow_run_id and flow_run_id and claim.flow_run_id != flow_run_id:
        raise RunAlreadyStarting(held_words(project, claim))
