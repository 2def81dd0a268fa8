"""A change request to a done (or halted) project, from any door: refused while a run works on
the project, else the revision starts (`phases.revision`) and a run takes it back to Phase 2 —
the door's run: the CLI's in its own process, the page's and MCP's on the deployment."""

from __future__ import annotations

from thoughtforge.config import Config
from thoughtforge.core import Project
from thoughtforge.core.course_claim import claimed
from thoughtforge.core.revisions import Revision
from thoughtforge.phases.revision import refuse_while_a_run_works, start_revision


def revise(config: Config, project: Project, change: str, *, keep_edits: bool = False) -> Revision:
    """The revision started for `change`; `RevisionRefused` while a run works on the project,
    `UncommittedEdits` over the person's uncommitted edits unless `keep_edits` commits them;
    `ProjectClaimed` while another change of its course (a second revise) holds the project."""
    with claimed(project, "revise"):
        refuse_while_a_run_works(project, "revise")
        return start_revision(project, config, change, keep_edits=keep_edits)
