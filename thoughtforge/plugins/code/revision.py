"""A revision in code mode: the builder plans new steps on top of the existing code.

The builder's state starts again (the plan gate's verdict kept) and the builder is told the
change, once per revision, so a build resumed after a crash or a halt goes on where it was. The
plan plugin's counterpart is `plugins.plan.revision`.
"""

from __future__ import annotations

from thoughtforge.core.project import Project
from thoughtforge.core.revisions import open_revision, update_revision
from thoughtforge.core.state import (
    CODE_BUILD_FILE,
    ChatMessage,
    append_chat,
    read_state_file,
    write_state_file,
)
from thoughtforge.errors import StateFileError
from thoughtforge.models import Phase
from thoughtforge.plugins.code.build_state import CodeBuildState


def begin_revision_build(project: Project) -> None:
    """Start the open revision's build, unless it has begun."""
    revision = open_revision(project.dir)
    if revision is None or revision.build_begun:
        return
    try:
        before = read_state_file(project.dir, CODE_BUILD_FILE, CodeBuildState)
    except StateFileError:
        before = CodeBuildState()
    write_state_file(project.dir, CODE_BUILD_FILE, CodeBuildState(gate=before.gate))
    append_chat(
        project.dir,
        ChatMessage(
            role="human",
            phase=Phase.BUILDING,
            content=(
                f"Revision {revision.number}: build this change on top of the existing code, "
                f"keeping what it does not touch: {revision.change}"
            ),
        ),
    )
    update_revision(project.dir, revision.model_copy(update={"build_begun": True}))
