"""A change request to a done (or halted) project, from any door: refused while a run works on
the project, else the revision starts (`phases.revision`) and a run takes it back to Phase 2 —
the door's run: the CLI's in its own process, the page's and MCP's on the deployment.

Every door holds the revision's claim until the run it starts takes it over (`revising`, then
`core.run_start.claimed_start(..., handed=...)`), so a Start pressed meanwhile is refused rather
than leave the revision's own run refused. The project's view is read once, under the claim: a
run started since any earlier read would be missed by that read, and none can start after it.
What the revision writes is added to that read (`Revising.view`), not read again."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from pydantic import BaseModel

from thoughtforge.actions.run_state import project_view
from thoughtforge.config import Config
from thoughtforge.core.course_claim import Claim, claimed
from thoughtforge.core.project import Project
from thoughtforge.core.project_view import ProjectView, handed_on
from thoughtforge.core.revisions import Revision
from thoughtforge.phases.revision import refuse_while_a_run_works, revise


class Revising(BaseModel):
    """A revision started, under its claim."""

    claim: Claim
    """The revision's claim, for the run that carries it out to take over."""
    view: ProjectView
    """The project's view read under the claim, with what the revision wrote."""

    @property
    def revision(self) -> Revision:
        return self.view.revisions.revisions[-1]

    def handed_to(self, run_claim: Claim | None) -> ProjectView:
        """The project's view once the claim is handed on: to the run started (`run_claim`,
        as kept for it), or let go (None: no run was asked for, or a process of its own
        takes the project's claim itself)."""
        return handed_on(self.view, run_claim)


@contextmanager
def revising(
    config: Config,
    project: Project,
    change: str,
    *,
    keep_edits: bool = False,
    check: Callable[[ProjectView], None] = lambda view: None,
) -> Iterator[Revising]:
    """The revision started for `change`, with the claim that still holds the project for the
    block, for the run that carries it out to take over. `check`: the door's check of what the
    project takes now, on the view read under the claim (the claim left out of it).
    `RevisionRefused` while a run works on the project, `UncommittedEdits` over the person's
    uncommitted edits unless `keep_edits` commits them; `ProjectClaimed` while another change
    of its course holds the project."""
    with claimed(project, "revise") as claim:
        view = project_view(config, project)
        check(_without(view, claim))
        refuse_while_a_run_works(project, "revise", view)
        yield Revising(
            claim=claim, view=revise(project, config, change, view, keep_edits=keep_edits)
        )


@contextmanager
def revised(
    config: Config, project: Project, change: str, *, keep_edits: bool = False
) -> Iterator[tuple[Revision, Claim]]:
    """`revising` as the command line takes it: the revision started, and its claim."""
    with revising(config, project, change, keep_edits=keep_edits) as started:
        yield started.revision, started.claim


def _without(view: ProjectView, claim: Claim) -> ProjectView:
    """The view as it was before `claim` was taken: the revision's own claim holds the project
    from the revision, not against it."""
    if view.course is not None and view.course.id == claim.id:
        return view.model_copy(update={"course": None})
    return view
