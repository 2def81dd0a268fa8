"""Where a project stands, read once from the files its state lives in: the one typed answer to
"is a run working on this project, and what does it wait for?".

A project's state is spread over `status.json`, `.waiting.json`, the project's claim
(`.starting.json`), the run lock, `revisions.json` and `polish_state.json`; each reader used to
pick its own subset, so two views of one project could disagree. `read_view` reads them
together and says where the run is (`RunPlace`). What only Prefect knows (a run it has
scheduled but that has not touched the project yet, a claimed run that already ended) is added
above, by `actions.run_state`.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel

from thoughtforge.core.course_claim import (
    Claim,
    claim_in_place,
    clearing_words,
    held_words,
    unreadable_clearing_words,
)
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import LOG_FILE
from thoughtforge.core.revisions import Revisions, read_revisions
from thoughtforge.core.run_lock import LOCK_FILE, is_running, lock_holder
from thoughtforge.core.state import POLISH_STATE_FILE, PolishState, Status, read_polish_state
from thoughtforge.core.waiting import Waiting, current_wait
from thoughtforge.errors import StateFileError
from thoughtforge.models import AUTONOMOUS_PHASES, Phase


class RunPlace(StrEnum):
    """Where a project's run is, from the person's side."""

    NONE = "none"
    """No run works on it or waits: it goes on only when started."""
    STARTING = "starting"
    """A run was asked for (or a suspended one woken) and does not hold the lock yet."""
    WORKING = "working"
    """A run holds the project's lock: the AI is working."""
    WAITING = "waiting"
    """A run waits for the person, its process still holding the project."""
    SUSPENDED = "suspended"
    """A run waits for the person with no process left: an answer wakes it."""
    HALTED = "halted"
    """Stopped for the person's decision (or terminated); no run waits for it."""
    DONE = "done"
    ARCHIVED = "archived"


HOLDS = frozenset({RunPlace.STARTING, RunPlace.WORKING, RunPlace.WAITING, RunPlace.SUSPENDED})
"""A run owns the project: moving the project under it (a revision, a rollback) is refused."""


class ProjectView(BaseModel):
    """A project as its files say it is now."""

    project: Project
    status: Status
    run: RunPlace
    waiting: Waiting | None = None
    """The question a run asked the person, while one waits."""
    claim: Claim | None = None
    """The claim of a run on its way (`core.run_start`)."""
    course: Claim | None = None
    """A change of the project's course in progress (a revision, a rollback, an archive): its
    claim, held by a live process (`core.course_claim`)."""
    stuck_claim: str | None = None
    """A file in the claim's place that is no claim ThoughtForge can read (an older version's,
    a pipe, a link): it holds the project until the person deletes it; what it is."""
    locked: bool = False
    """A run holds the project's lock (its process is alive)."""
    holder: str | None = None
    """Who holds the run lock (`pid N`), while a run works."""
    prefect_run: str | None = None
    """A run Prefect has scheduled, starting or running for the project, by name: set by
    `actions.run_state`, which can ask Prefect; the files cannot know it."""
    revisions: Revisions = Revisions()
    """The project's change requests (`revisions.json`): a revision started under the claim
    this view was read under adds to this record, not to one read again."""
    open_findings: int | None = None
    """The last polish review's issues, once the project has been polished."""

    @property
    def revision(self) -> int:
        """The revision the project's files are from."""
        return self.revisions.shown

    @property
    def works(self) -> bool:
        """A run holds the lock, or one is on its way (claimed): it will write to the project."""
        return self.locked or self.claim is not None

    @property
    def busy(self) -> bool:
        """A run holds the lock, or Prefect has one scheduled, starting or re-entering."""
        return self.locked or self.prefect_run is not None

    @property
    def claim_note(self) -> str | None:
        """What holds the project's claim and how it clears, while anything does."""
        if self.stuck_claim is not None:
            return f"{self.stuck_claim} ({unreadable_clearing_words(self.project)})"
        held = self.course or self.claim
        if held is None:
            return None
        return f"{held_words(self.project, held)} ({clearing_words(self.project, held)})"

    @property
    def stranded(self) -> str | None:
        """A project left in a phase a run works through, with no run: its last run ended without
        recording a halt (killed, or on a disk so full or read-only that no halt could be
        recorded). Said at every look, since nothing else in its files says it."""
        if self.run is not RunPlace.NONE or self.status.phase not in AUTONOMOUS_PHASES:
            return None
        return (
            f"no run works on it, though it is still {self.status.phase}: its run stopped "
            "without recording a halt (killed, or on a disk too full or read-only to record "
            f"one; {LOG_FILE} says which), or none was started: `thoughtforge continue "
            f"{self.project.id}` goes on from its last commit (once the disk is fixed, if it "
            "was the disk)"
        )

    @property
    def course_held(self) -> bool:
        """A change of course (or a claim nobody can read) holds the project: nothing moves it."""
        return self.course is not None or self.stuck_claim is not None

    @property
    def holds(self) -> bool:
        """A run owns the project (working, on its way, or waiting for the person)."""
        return self.run in HOLDS or self.works


def read_view(project: Project) -> ProjectView:
    """The project's view from its files (`StateFileError` when `status.json` is unusable)."""
    status = project.status()
    waiting = current_wait(project.dir)
    found = claim_in_place(project)
    held = None if isinstance(found, str) else found
    claim = held if held is not None and held.for_a_run else None
    running = is_running(project)
    return ProjectView(
        project=project,
        status=status,
        run=_place(status, waiting, claim, running),
        waiting=waiting,
        claim=claim,
        course=held if claim is None else None,
        stuck_claim=found if isinstance(found, str) else None,
        locked=running,
        holder=lock_holder(project.dir / LOCK_FILE) if running else None,
        revisions=read_revisions(project.dir),
        open_findings=_open_findings(project),
    )


def view_after(
    view: ProjectView, status: Status, revisions: Revisions, polish: PolishState
) -> ProjectView:
    """`view`, read under a claim, once the change made under that claim wrote `status`,
    `revisions` and `polish` (each the record written, never one guessed); where the run is,
    derived again as `read_view` derives it. Nothing else moves under a claim: no run takes the
    lock or asks beside it (`core.run_start.refuse_beside_another`)."""
    changed = view.model_copy(
        update={
            "status": status,
            "revisions": revisions,
            "open_findings": len(polish.last_issues),
        }
    )
    return _placed(changed)


def handed_on(view: ProjectView, claim: Claim | None) -> ProjectView:
    """`view` once the claim it was read under is handed on: `claim`, the run's it became
    (kept for a run on its way), or None when it was let go."""
    run_claim = claim if claim is not None and claim.for_a_run else None
    course = claim if claim is not None and run_claim is None else None
    return _placed(view.model_copy(update={"claim": run_claim, "course": course}))


def with_prefect_run(view: ProjectView, name: str | None) -> ProjectView:
    """`view` with Prefect's word on a run it has scheduled, starting or running on the
    project (`actions.run_state` asks), which the files cannot know."""
    return _placed(view.model_copy(update={"prefect_run": name}))


def _placed(view: ProjectView) -> ProjectView:
    run = _place(view.status, view.waiting, view.claim, view.locked)
    if view.prefect_run is not None and run in (RunPlace.NONE, RunPlace.HALTED):
        run = RunPlace.WORKING  # a run Prefect has busy on it that has not touched it yet
    return view.model_copy(update={"run": run})


def _place(status: Status, waiting: Waiting | None, claim: Claim | None, running: bool) -> RunPlace:
    if status.archived_at is not None:
        return RunPlace.ARCHIVED
    if status.phase is Phase.DONE and not running and claim is None:
        return RunPlace.DONE
    if claim is not None and not running and (claim.why == "wake" or waiting is None):
        return RunPlace.STARTING
    if waiting is not None:
        return RunPlace.SUSPENDED if waiting.away and not running else RunPlace.WAITING
    if running:
        return RunPlace.WORKING
    if claim is not None:
        return RunPlace.STARTING
    if status.phase is Phase.HALTED:
        return RunPlace.HALTED
    return RunPlace.NONE


def _open_findings(project: Project) -> int | None:
    if not (project.dir / POLISH_STATE_FILE).exists():
        return None
    try:
        return len(read_polish_state(project.dir).last_issues)
    except StateFileError:
        return None
