"""The code deliverable's validator (the plugin contract's `validation.py`): the files a coding
agent changed must each be a whole source file, not a diff, conflict markers or an elided part.

The locked acceptance check of the person's tests joins it here (its own issue); the verdict is
the one every deliverable gets (`phases.deliverable.verdict`).
"""

from __future__ import annotations

from thoughtforge.core import git_repo
from thoughtforge.core.own_files import read_own_text
from thoughtforge.core.project import Project
from thoughtforge.core.staging import SOURCE_SUFFIXES
from thoughtforge.phases.deliverable.verdict import Candidate, DeliverableVerdict
from thoughtforge.phases.deliverable.whole_document import refused_source


def validate(project: Project, candidate: Candidate) -> DeliverableVerdict:
    """Refused when a changed source file is left broken; compared with its committed text."""
    for relpath in candidate.files:
        path = project.dir / relpath
        if not path.is_file() or path.suffix.lower() not in SOURCE_SUFFIXES:
            continue
        try:
            new = read_own_text(path)
            old = git_repo.committed_text(project.dir, relpath)
        except (OSError, UnicodeDecodeError):
            continue
        why = refused_source(old, new)
        if why:
            return DeliverableVerdict.refused("source", f"the fixer left {relpath} broken: {why}")
    return DeliverableVerdict(accepted=True)
