"""A run on its way: from the moment someone asks for one (New Project, Start, an answer that
wakes a suspended run) until it takes the project's run lock or fails.

Between the request and the lock a run has no process on the project yet (the worker is still
starting it), so neither the lock nor the wait says anything, and a second request would make a
second run that fails on the lock. `.starting.json` fills that gap: it is created exclusively
(written whole beside it, then hard-linked into place), so of two requests at once one claims it
and the other is refused before any run is made; the run that takes the lock removes it. A claim
never taken up (the worker died, the run failed before its lock) stops counting after
`STALE_SECONDS`, or as soon as whoever can see the run's state says it ended (`clear_start`).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ValidationError

from thoughtforge.core.atomic_write import unwritable, write_text_atomic
from thoughtforge.core.project import Project
from thoughtforge.core.run_lock import STARTING_FILE, clear_start, is_running
from thoughtforge.core.state import utc_now
from thoughtforge.errors import ProjectError

STALE_SECONDS = 300.0
"""A claim older than this, whose run never took the lock, is forgotten."""

Why = Literal["start", "wake"]


class Starting(BaseModel):
    """A run asked for and not yet holding the lock: `start`, a new run; `wake`, a suspended run
    handed an answer, restarting in a new process."""

    why: Why
    since: datetime
    flow_run_id: str | None = None
    run_name: str | None = None


class RunAlreadyStarting(ProjectError):
    """A run was asked for while another is starting or holds the project's lock."""


def claim_start(project: Project, why: Why) -> Starting:
    """Claim the project for a run about to be asked for; refused (`RunAlreadyStarting`) when a
    run holds the lock or another claim stands."""
    if is_running(project):
        raise RunAlreadyStarting(f"project {project.id} is already being run")
    claim = Starting(why=why, since=utc_now())
    for _ in range(2):
        if _create_whole(project.dir / STARTING_FILE, claim.model_dump_json()):
            return claim
        standing = starting(project)
        if standing is not None:
            raise RunAlreadyStarting(_already(project, standing))
        # else a stale claim, removed by `starting`: try once more
    raise RunAlreadyStarting(f"another request is starting a run of {project.id}")


class StartClaim:
    """A claim held for the length of a `with` block (`claimed_start`): kept past it only when
    the block says the run it was made for is on its way (`keep`)."""

    def __init__(self, project: Project, claim: Starting) -> None:
        self.project = project
        self.claim = claim
        self.kept = False

    def keep(self, flow_run_id: str | None = None, run_name: str | None = None) -> None:
        """The run was asked for (its id and name, when the server made it), or an answer
        handed to a suspended run that wakes: the claim stands until that run takes the lock."""
        if flow_run_id is not None and run_name is not None:
            record_run(self.project, flow_run_id, run_name)
        self.kept = True


@contextmanager
def claimed_start(project: Project, why: Why) -> Iterator[StartClaim]:
    """Claim the project (`claim_start`, refused with `RunAlreadyStarting`) for the block; at its
    end, or on any error in it, the claim goes unless kept, and only while it is still this
    claim (the run may have taken the lock and another request claimed since)."""
    held = StartClaim(project, claim_start(project, why))
    try:
        yield held
    finally:
        if not held.kept:
            _clear_if_still(project, held.claim)


def _clear_if_still(project: Project, claim: Starting) -> None:
    standing = starting(project)
    if standing is not None and standing.since == claim.since and standing.why == claim.why:
        clear_start(project)


def _create_whole(path: Path, text: str) -> bool:
    """Create `path` holding `text`, unless it exists; never seen half-written (the text is
    written beside it first, then hard-linked into place, which fails if the name exists)."""
    draft = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}")
    try:
        draft.write_text(text)
        try:
            os.link(draft, path)
        except FileExistsError:
            return False
        finally:
            draft.unlink(missing_ok=True)
    except OSError as exc:  # a full disk, a read-only folder: one clear line, not a traceback
        raise unwritable(path, exc) from None
    return True


def refuse_beside_another(project: Project, flow_run_id: str | None) -> None:
    """For a run arriving on the project (say, one `prefect deployment run` made while the page's
    run was starting): refused when the claim is another run's, before it takes anything."""
    claim = starting(project)
    if claim is not None and claim.flow_run_id and flow_run_id and claim.flow_run_id != flow_run_id:
        raise RunAlreadyStarting(_already(project, claim))


def record_run(project: Project, flow_run_id: str, run_name: str) -> None:
    """The claim's run, once the server made it."""
    claim = starting(project)
    if claim is not None:
        updated = claim.model_copy(update={"flow_run_id": flow_run_id, "run_name": run_name})
        write_text_atomic(project.dir / STARTING_FILE, updated.model_dump_json())


def starting(project: Project) -> Starting | None:
    """The standing claim, or None; a stale or unreadable one is removed."""
    path = project.dir / STARTING_FILE
    try:
        claim = Starting.model_validate_json(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValidationError):
        clear_start(project)
        return None
    if (utc_now() - claim.since).total_seconds() > STALE_SECONDS:
        clear_start(project)
        return None
    return claim


def _already(project: Project, claim: Starting) -> str:
    run = f" ({claim.run_name})" if claim.run_name else ""
    verb = "waking up" if claim.why == "wake" else "starting"
    return f"a run of {project.id} is already {verb}{run}: wait for it to ask you"
