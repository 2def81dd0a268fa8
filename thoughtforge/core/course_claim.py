"""One claim per change of a project's course: starting a run (or waking a suspended one), a
revision, a rollback, an archive. Whoever changes the course takes the project's one claim
first, so of two at once — two CLI processes, the page and MCP, two tabs — one proceeds and the
other is told in words what holds the project, before anything moved.

The claim (`.starting.json`, named when only a run's start took it) is written whole (temp +
rename) under the project's state lock, which also makes taking it one step: read, judge, write.
It names its owner as a process (`core.process_identity`), and it stands while that process
lives: one left by a process killed with -9 is taken over by the next caller at once, and a slow
owner that still runs is never robbed. No wall clock decides, since a clock can be set back.
Taken over only when its owner is proven gone: one whose life cannot be judged (another
machine's, a boot id unreadable here or there) stands, and so does a file in the claim's place
that is no claim ThoughtForge can read (an older version's, without an owner; a pipe, a link):
both are shown with the file to delete. A claim naming pid 1 or the reader's own process, which
it does not hold, has no owner that could release it: it is stale.

A run's claim outlives the request that asked for the run (the page's request ends; the run is
started by the worker): it is *kept* for the run, which removes it when it takes the run lock.
A kept claim whose run never came stops counting `KEPT_SECONDS` after it was kept, measured on
this machine's boot clock (which never runs backwards), or as soon as whoever can see the run's
state says it ended (`actions.run_state`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, suppress
from datetime import datetime
from typing import Literal
from uuid import uuid4

from pydantic import BaseModel, Field, ValidationError

from thoughtforge.core.atomic_write import write_text_atomic
from thoughtforge.core.own_files import MAX_MARKER_BYTES, read_own_bytes
from thoughtforge.core.process_identity import (
    UNKNOWN_BOOT,
    ProcessIdentity,
    boot_id,
    is_alive,
    is_init,
    on_this_machine,
    seconds_since_boot,
    this_process,
)
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import log_event
from thoughtforge.core.state import state_lock, utc_now
from thoughtforge.errors import ProjectError, ProjectFileError, schema_problems

STARTING_FILE = ".starting.json"
KEPT_SECONDS = 300.0
"""A kept claim whose run has not taken the lock after this long is forgotten."""
_held_here: set[str] = set()
"""The claims this process took and has not released: one naming this process and not here
was left by nobody who could release it."""

Course = Literal["start", "wake", "revise", "rollback", "archive", "unarchive"]
RUN_COURSES = frozenset({"start", "wake"})
_NOUNS = {
    "start": "a run's start",
    "wake": "a run's wake-up",
    "revise": "a revision",
    "rollback": "a rollback",
    "archive": "archiving",
    "unarchive": "unarchiving",
}


class Claim(BaseModel):
    """Who holds the project's course, since when, and (for a run) the run asked for."""

    id: str = Field(default_factory=lambda: uuid4().hex)
    why: Course
    since: datetime
    """When it was taken: shown to the person, never used to expire it."""
    owner: ProcessIdentity
    kept_at: float | None = None
    """Kept for its run (`keep`): the owner's boot clock then."""
    flow_run_id: str | None = None
    run_name: str | None = None

    @property
    def for_a_run(self) -> bool:
        """A run is on its way (or waking): it will take the lock and work on the project."""
        return self.why in RUN_COURSES


class ProjectClaimed(ProjectError):
    """Another change of the project's course holds its claim; the words say which and whose."""


class RunAlreadyStarting(ProjectClaimed):
    """A run was asked for while another is starting or holds the project's lock."""


def take_claim(project: Project, why: Course, *, handed: Claim | None = None) -> Claim:
    """The project's claim for `why`, taken over from an owner that no longer lives; refused
    (`ProjectClaimed`, `RunAlreadyStarting` when a run's) while another stands. `handed`, a
    claim the caller holds, becomes this one in the same step (a revision's, handed to the run
    that carries it out), so nobody takes the project between the two."""
    with state_lock(project.dir):
        standing = _read_standing(project)
        if isinstance(standing, str):
            raise ProjectClaimed(f"{standing} ({unreadable_clearing_words(project)})")
        if standing is not None and (handed is None or standing.id != handed.id):
            error = RunAlreadyStarting if standing.for_a_run else ProjectClaimed
            raise error(held_words(project, standing))
        claim = Claim(why=why, since=utc_now(), owner=this_process())
        write_text_atomic(project.dir / STARTING_FILE, claim.model_dump_json())
        _held_here.add(claim.id)
        if handed is not None:
            _held_here.discard(handed.id)
    return claim


@contextmanager
def claimed(project: Project, why: Course, *, handed: Claim | None = None) -> Iterator[Claim]:
    """The claim for the length of a `with` block (made of `handed`, see `take_claim`):
    released at its end, however it ends, unless it was kept for a run (`keep`)."""
    claim = take_claim(project, why, handed=handed)
    try:
        yield claim
    finally:
        release(project, claim, unless_kept=True)


def keep(
    project: Project, claim: Claim, flow_run_id: str | None, run_name: str | None
) -> Claim | None:
    """The run `claim` was taken for is on its way: the claim stands past its owner's block,
    until the run takes the lock (its id and name, once the server made it). The claim as
    kept; None when it is no longer the project's."""
    with state_lock(project.dir):
        current = _claim_now(project)
        if current is None or current.id != claim.id:
            return None
        kept = current.model_copy(
            update={
                "kept_at": seconds_since_boot(),
                "flow_run_id": flow_run_id or current.flow_run_id,
                "run_name": run_name or current.run_name,
            }
        )
        write_text_atomic(project.dir / STARTING_FILE, kept.model_dump_json())
    return kept


def release(project: Project, claim: Claim, *, unless_kept: bool = False) -> None:
    """Remove `claim`, only while it is still the project's (a run may have taken the lock and
    another caller claimed since); with `unless_kept`, a kept one stays for its run."""
    with state_lock(project.dir):
        current = _claim_now(project)
        kept = current is not None and current.kept_at is not None
        if current is not None and current.id == claim.id and not (unless_kept and kept):
            _remove(project)
    _held_here.discard(claim.id)


def end_run_claim(project: Project) -> None:
    """The run asked for has taken the lock (or will never come): a run's claim goes; a
    revision's, a rollback's or an archive's stays with its owner."""
    with state_lock(project.dir):
        current = _claim_now(project)
        if current is not None and current.for_a_run:
            _remove(project)


def standing_claim(project: Project) -> Claim | None:
    """The claim that holds the project now, or None; one whose owner is gone is removed on the
    way. A file in its place that is no readable claim is `unreadable_claim`'s."""
    found = claim_in_place(project)
    return None if isinstance(found, str) else found


def claim_in_place(project: Project) -> Claim | str | None:
    """`standing_claim` and `unreadable_claim` from one read of the claim's file: the claim
    that holds the project now, what holds it when that file is no claim ThoughtForge can read,
    or None."""
    current = _current(project)
    if current is None or isinstance(current, str) or _stands(current):
        return current
    with state_lock(project.dir):
        return _read_standing(project)


def unreadable_claim(project: Project) -> str | None:
    """What holds the project when its claim's file is there but no claim ThoughtForge can read
    (an older version's, or a pipe, a link, garbage): it stands, as nothing proves its owner
    gone, until the person deletes it (`unreadable_clearing_words`)."""
    current = _current(project)
    return current if isinstance(current, str) else None


def unreadable_clearing_words(project: Project) -> str:
    return (
        "if nothing of ThoughtForge is starting, revising, rolling back or archiving it, "
        f"delete {project.dir / STARTING_FILE}"
    )


def held_words(project: Project, claim: Claim) -> str:
    """What holds the project, for the caller refused."""
    at = claim.since.astimezone().strftime("%H:%M")
    by = f"pid {claim.owner.pid} {_where(claim.owner)} at {at}"
    if claim.for_a_run:
        verb = "waking up" if claim.why == "wake" else "starting"
        if claim.kept_at is not None:
            run = f" ({claim.run_name})" if claim.run_name else ""
            return f"a run of {project.id} is already {verb}{run}: wait for it to ask you"
        return f"a run of {project.id} is already {verb}, asked by {by}: wait for it to ask you"
    return f"{_NOUNS[claim.why]} started by {by} holds project {project.id}; try again when it ends"


def clearing_words(project: Project, claim: Claim) -> str:
    """How the claim goes away: by itself, when its owner ends; what to do when it will not."""
    if claim.kept_at is not None:
        minutes = round(KEPT_SECONDS / 60)
        return (
            "it clears itself when the run takes the project, when Prefect says the run ended, "
            f"or {minutes} minutes after it was asked for"
        )
    if on_this_machine(claim.owner) and is_alive(claim.owner) is not None:
        return (
            f"it clears itself when pid {claim.owner.pid} ends (the next command takes it over "
            f"at once); if that process is stuck, end it (`kill {claim.owner.pid}`), or if it "
            f"is no ThoughtForge, delete {project.dir / STARTING_FILE}"
        )
    if on_this_machine(claim.owner):
        return (
            f"this machine's boot id cannot be read, so whether pid {claim.owner.pid} is the "
            f"owner cannot be told; once it has ended, delete {project.dir / STARTING_FILE}"
        )
    return (
        f"it clears itself when pid {claim.owner.pid} on {claim.owner.host} ends, which only "
        f"that machine can see; if nothing of ThoughtForge runs there, delete "
        f"{project.dir / STARTING_FILE}"
    )


def _where(owner: ProcessIdentity) -> str:
    return "on this machine" if on_this_machine(owner) else f"on {owner.host}"


def _stands(claim: Claim) -> bool:
    if claim.kept_at is None:
        return _owner_may_live(claim)
    if on_this_machine(claim.owner):
        if UNKNOWN_BOOT in (claim.owner.boot_id, boot_id()):
            return True  # its boot clock cannot be told from this one's: the person clears it
        if claim.owner.boot_id != boot_id():
            return False
        return seconds_since_boot() - claim.kept_at <= KEPT_SECONDS
    # another machine's boot clock cannot be read here: its wall clock, either way
    return abs((utc_now() - claim.since).total_seconds()) <= KEPT_SECONDS


def _owner_may_live(claim: Claim) -> bool:
    """Not proven gone. Pid 1 is no ThoughtForge process (unless this machine's is one), and
    this process holds only the claims it took: a claim naming either is nobody's."""
    owner = claim.owner
    if on_this_machine(owner) and owner.boot_id == boot_id() != UNKNOWN_BOOT:
        if owner.pid == 1 and not is_init(owner):
            return False
        if owner == this_process() and claim.id not in _held_here:
            return False
    return is_alive(owner) is not False


def _read_standing(project: Project) -> Claim | str | None:
    """Under the state lock: the standing claim (or an unreadable one's words), a gone one
    removed."""
    current = _current(project)
    if current is None or isinstance(current, str) or _stands(current):
        return current
    log_event(project.dir, "claim_taken_over", why=current.why, pid=current.owner.pid)
    _remove(project)
    return None


def _current(project: Project) -> Claim | str | None:
    """The claim as written; None when there is none (or a folder stands in its place, which
    the next write names); what holds the project when a file there is no claim."""
    path = project.dir / STARTING_FILE
    try:
        return Claim.model_validate_json(read_own_bytes(path, MAX_MARKER_BYTES))
    except (FileNotFoundError, IsADirectoryError):
        return None
    except OSError as exc:
        if path.is_dir() and not path.is_symlink():
            return None
        why = exc.reason if isinstance(exc, ProjectFileError) else (exc.strerror or str(exc))
    except ValidationError as exc:
        older = any(error["loc"] == ("owner",) for error in exc.errors())
        why = "an older ThoughtForge's, naming no owner" if older else schema_problems(exc, 1)
    return f"project {project.id} is held by a claim ThoughtForge cannot read ({path}: {why})"


def _claim_now(project: Project) -> Claim | None:
    current = _current(project)
    return None if isinstance(current, str) else current


def _remove(project: Project) -> None:
    with suppress(OSError):  # a folder in its place: the write that follows says so in one line
        (project.dir / STARTING_FILE).unlink(missing_ok=True)
