"""Rollback: put a project's files back as they were at a phase end, a polish iteration or any
commit, with a new commit (history is never rewritten), and set its state files to match.

What stays as it is: the chat (the thread says the rollback happened), `revisions.json` (what was
asked; it notes the revision the files are from now) and `status.json`, which moves through
`transition()`. `polish_state.json` comes back as it
was at that point, so the trajectory matches it and a later `polish` continues from there.
"""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel, ValidationError

from thoughtforge.core import git_repo
from thoughtforge.core.history import HistoryItem, find_item, project_history
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import log_event
from thoughtforge.core.revisions import (
    REVISIONS_FILE,
    read_revisions,
    update_revision,
    write_revisions,
)
from thoughtforge.core.staging import commit_own, mark_polished, secure_edits
from thoughtforge.core.state import (
    CHAT_ARCHIVE_FILE,
    CHAT_HISTORY_FILE,
    POLISH_STATE_FILE,
    STATUS_FILE,
    ChatMessage,
    PolishState,
    Status,
    append_chat,
    clear_chat,
    write_polish_state,
)
from thoughtforge.core.transition import transition
from thoughtforge.models import HaltReason, Phase
from thoughtforge.phases.revision import RevisionRefused, refuse_while_a_run_works

M = TypeVar("M", bound=BaseModel)
KEPT = [STATUS_FILE, CHAT_HISTORY_FILE, CHAT_ARCHIVE_FILE, REVISIONS_FILE]
"""Never put back by a rollback."""
_PHASE_AFTER = {
    "phase1": Phase.SPEC_BUILDING,
    "phase2": Phase.BUILDING,
    "phase3": Phase.POLISHING,
    "phase4": Phase.DONE,
}
COMMIT_PREFIX = "Rollback to "
"""How a rollback's commit subject begins: a project whose last commit begins so is idle where it
was restored, no run having worked on it since."""
_REACHABLE = frozenset({Phase.SPEC_BUILDING, Phase.BUILDING, Phase.POLISHING, Phase.DONE})


class RollbackOutcome(BaseModel):
    item: HistoryItem
    phase: Phase
    label: str


def target_state(
    item: HistoryItem, status_then: Status | None, polish_then: PolishState | None
) -> tuple[Phase, PolishState]:
    """The phase and polish state a project has once rolled back to `item` (pure): after a
    phase end, the next phase from its start; after iteration N, polishing with N iterations
    recorded; after any other commit, the phase that commit recorded (where a halt was, the
    phase it halted in)."""
    base = (item.name or "").split("-", 1)[-1] if item.name and item.revision > 1 else item.name
    if item.kind == "phase_end" and base in _PHASE_AFTER:
        phase = _PHASE_AFTER[base]
        if phase is Phase.DONE:
            return phase, polish_then or PolishState(completed=True)
        return phase, PolishState()
    polish = (polish_then or PolishState()).model_copy(
        update={"completed": False, "halt_reason": None}
    )
    if item.kind == "polish":
        return Phase.POLISHING, polish
    if status_then is None:
        raise RevisionRefused(f"commit {item.short} has no readable {STATUS_FILE} to go back to")
    phase = status_then.phase
    if phase is Phase.HALTED:
        phase = status_then.halted_from or phase
    if phase is Phase.DONE:
        return phase, polish_then or PolishState(completed=True)
    if phase not in _REACHABLE:
        raise RevisionRefused(
            f"commit {item.short} is from {phase}: a rollback goes back at most to the end of "
            "Phase 1 (`phase1`)"
        )
    return phase, polish if phase is Phase.POLISHING else PolishState()


def label_of(item: HistoryItem) -> str:
    return f"{item.name} ({item.short})" if item.name else f"commit {item.short}"


def rollback(project: Project, wanted: str, *, keep_edits: bool = False) -> RollbackOutcome:
    """Restore the project to `wanted` (see `core.history` for the names). Refused while a run
    works on it or waits in it, for a terminated project, and over uncommitted edits unless
    `keep_edits` commits them first (`core.staging.secure_edits`); any other project is idle,
    whatever its phase, so a restore can be undone by another (back to a later point too)."""
    refuse_while_a_run_works(project, "roll back")
    status = project.status()
    if status.halt_reason is HaltReason.HUMAN_TERMINATED:
        raise RevisionRefused(f"{project.id} was terminated, which is final: nothing to restore")
    item = find_item(project_history(project.dir), wanted)
    phase, polish = target_state(
        item,
        _at(project, item.commit, STATUS_FILE, Status),
        _at(project, item.commit, POLISH_STATE_FILE, PolishState),
    )
    label = label_of(item)
    secure_edits(project.dir, f"roll back to {label}", keep=keep_edits)
    git_repo.restore_tree(project.dir, item.commit, KEPT)
    write_polish_state(project.dir, polish)
    _close_abandoned_revision(project, item)
    _mark_restored(project, item)
    words = (
        f"Rolled back to {label}: {item.what}. The files are as they were then; the project is "
        f"in {phase}."
    )
    if phase is not status.phase:
        name = status.project_name or project.id
        transition(project, phase, summary=f"Project '{name}' — {words}")
    clear_chat(project.dir)
    append_chat(project.dir, ChatMessage(role="system", content=words, phase=phase))
    log_event(project.dir, "rollback", to=item.name or item.commit, commit=item.commit, phase=phase)
    commit_own(project.dir, f"{COMMIT_PREFIX}{label}: {item.what}", agent_files=True)
    if phase is Phase.DONE:
        mark_polished(project.dir)
    return RollbackOutcome(item=item, phase=phase, label=label)


def _close_abandoned_revision(project: Project, item: HistoryItem) -> None:
    """Back to a point before the open revision's build: its build is no longer open."""
    latest = read_revisions(project.dir).latest
    if latest is not None and not latest.built and item.revision < latest.number:
        update_revision(project.dir, latest.model_copy(update={"built": True}))


def _mark_restored(project: Project, item: HistoryItem) -> None:
    """The files are `item`'s revision's now: the header, status and the board say so."""
    revisions = read_revisions(project.dir)
    restored = item.revision if item.revision != revisions.current else None
    if revisions.restored != restored:
        write_revisions(project.dir, revisions.model_copy(update={"restored": restored}))


def _at(project: Project, commit: str, relpath: str, model: type[M]) -> M | None:
    text = git_repo.file_at(project.dir, commit, relpath)
    if text is None:
        return None
    try:
        return model.model_validate_json(text)
    except ValidationError:
        return None
