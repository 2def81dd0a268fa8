"""Re-polish: send a finished project back through the polish loop when its deliverable or its
`constraints.md` changed since it was last polished.

Every move to `done` tags the commit it was polished at (`thoughtforge-polished`, in the project's
own repo); the check compares the work tree with that tag, so an edit counts whether or not it was
committed. A project done before the tag existed is checked against its newest commit.
"""

from __future__ import annotations

from pydantic import BaseModel

from thoughtforge.config import Config
from thoughtforge.core import git_repo
from thoughtforge.core.project import CONSTRAINTS_FILE, Project, list_projects
from thoughtforge.core.staging import POLISHED_TAG, commit_own
from thoughtforge.core.state import PolishState, write_polish_state
from thoughtforge.core.transition import transition
from thoughtforge.models import Phase
from thoughtforge.phases.plugin_loader import plugin_for


class RepolishCheck(BaseModel):
    """One done project looked at, and why it is (or is not) re-polished."""

    project_id: str
    changed: list[str]
    reason: str

    @property
    def due(self) -> bool:
        return bool(self.changed)


def check_done_projects(config: Config) -> list[RepolishCheck]:
    """Every `done` project, with what changed since its last polish."""
    return [
        check(listing.project, config)
        for listing in list_projects(config)
        if listing.status is not None and listing.status.phase is Phase.DONE
    ]


def check(project: Project, config: Config) -> RepolishCheck:
    """What changed in the deliverable and the constraints since the project was last polished."""
    deliverable = plugin_for(config, project.status().deliverable_type).deliverable
    watched = [deliverable, CONSTRAINTS_FILE]
    changed = git_repo.changed_since(project.dir, POLISHED_TAG, watched)
    since = f"tag {POLISHED_TAG}"
    if changed is None:
        changed = git_repo.changed_since(project.dir, "HEAD", watched) or []
        since = "its newest commit (no polish recorded)"
    reason = (
        f"changed since {since}: {', '.join(changed)}" if changed else f"unchanged since {since}"
    )
    return RepolishCheck(project_id=project.id, changed=changed, reason=reason)


def start_repolish(project: Project, found: RepolishCheck) -> None:
    """Back to `polishing` with a fresh loop state, the edits committed as its starting point."""
    transition(project, Phase.POLISHING, summary=f"Re-polish: {found.reason}")
    write_polish_state(project.dir, PolishState())
    commit_own(project.dir, f"Re-polish: {', '.join(found.changed)} changed")
