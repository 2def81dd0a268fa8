"""Every reply a step refused, kept in the project: the person sees what the model wrote.

A refused reply used to be gone (Phase 2 kept it in the chat; Phase 1 and the reviewer did not),
so "unusable twice" could not be checked or argued with. Each one is written to
`rejected/<time>-<step>-<attempt>.txt`, committed with the project's own files, logged, and named
in the chat with the reason it was refused.
"""

from __future__ import annotations

import re
from contextlib import suppress

from thoughtforge.core.atomic_write import write_text_atomic
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import log_event
from thoughtforge.core.staging import REJECTED_DIR
from thoughtforge.core.state import utc_now
from thoughtforge.errors import StateFileError, UnusableReply
from thoughtforge.models import Phase
from thoughtforge.phases.chat import notice


def rejected_so_far(project: Project, step: str) -> int:
    """How many answers to `step` this project already refused: a resumed question starts its
    re-ask count there, so an HTTP agent does not answer it at the same temperature again."""
    return sum(1 for _ in (project.dir / REJECTED_DIR).glob(f"*-{_slug(step)}-*.txt"))


def keep_rejected(
    project: Project, phase: Phase, step: str, attempt: int, why: UnusableReply
) -> str:
    """Write the refused answer, say so in the chat; the path relative to the project."""
    relpath = f"{REJECTED_DIR}/{utc_now():%Y%m%dT%H%M%S%f}-{_slug(step)}-{attempt}.txt"
    (project.dir / REJECTED_DIR).mkdir(exist_ok=True)
    write_text_atomic(project.dir / relpath, why.reply.rstrip("\n") + "\n")
    log_event(
        project.dir,
        "answer_unusable",
        level="warning",
        step=step,
        attempt=attempt,
        why=str(why),
        kept=relpath,
    )
    with suppress(StateFileError):  # the answer and the log stand; a broken chat halts elsewhere
        notice(project, f"The agent's answer was unusable: {why} (kept in {relpath}).", phase)
    return relpath


def _slug(step: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", step.lower()).strip("-") or "answer"
