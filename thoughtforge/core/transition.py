"""`transition()`: the only way a project's phase changes.

It writes `status.json` (a project that moves leaves the archive), logs the change, then tells the
notifier, the board and the listeners (`hooks`: the ones given, else the ones installed for this
process). They are best-effort: their failures become logged warnings, never halts.
"""

from __future__ import annotations

from thoughtforge.catalogue import DECISION_HALTS
from thoughtforge.core.hooks import (
    EventType,
    Notification,
    TransitionHooks,
    best_effort,
    installed_hooks,
    transition_listeners,
)
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import log_event
from thoughtforge.core.state import Status, utc_now, write_status
from thoughtforge.errors import TransitionError
from thoughtforge.models import CONVERSATION_PHASES, DeliverableType, HaltReason, Phase

_NEXT: dict[Phase, frozenset[Phase]] = {
    Phase.BRAIN_DUMP: frozenset({Phase.DISTILLING}),
    Phase.DISTILLING: frozenset({Phase.HUMAN_REVIEW, Phase.BRAIN_DUMP}),
    Phase.HUMAN_REVIEW: frozenset({Phase.DISTILLING, Phase.SPEC_BUILDING}),
    Phase.SPEC_BUILDING: frozenset({Phase.BUILDING}),
    Phase.BUILDING: frozenset({Phase.POLISHING}),
    Phase.POLISHING: frozenset({Phase.DONE}),
    # re-polish, when the deliverable was edited; a change request (revise) back to Phase 2; a
    # rollback to a phase end or a polish iteration
    Phase.DONE: frozenset({Phase.POLISHING, Phase.SPEC_BUILDING, Phase.BUILDING}),
    Phase.HALTED: frozenset(p for p in Phase if p is not Phase.HALTED),
}

_MILESTONES: dict[tuple[Phase, Phase], str] = {
    (Phase.BRAIN_DUMP, Phase.DISTILLING): "distilling the brain dump.",
    (Phase.DISTILLING, Phase.HUMAN_REVIEW): "distillation ready. Correct it, then confirm.",
    (Phase.HUMAN_REVIEW, Phase.DISTILLING): "distilling again with your corrections.",
    (Phase.HUMAN_REVIEW, Phase.SPEC_BUILDING): "Phase 1 complete. Intent locked.",
    (Phase.SPEC_BUILDING, Phase.BUILDING): (
        "Phase 2 complete. Spec and constraints locked. Build starting."
    ),
    (Phase.BUILDING, Phase.POLISHING): "Phase 3 complete. Deliverable built. Polish loop starting.",
}
"""The notification summary of each move that is not given one (the spec's wording)."""


def transition(
    project: Project,
    phase: Phase,
    *,
    halt_reason: HaltReason | None = None,
    summary: str | None = None,
    event_type: EventType | None = None,
    project_name: str | None = None,
    deliverable_type: DeliverableType | None = None,
    hooks: TransitionHooks | None = None,
) -> Status:
    """Move `project` to `phase` (a halt needs a `halt_reason`) and announce it."""
    before = project.status()
    _check_allowed(before, phase, halt_reason)
    after = _next_status(before, phase, halt_reason, project_name, deliverable_type)
    write_status(project.dir, after)
    notification = Notification(
        project_id=project.id,
        project_name=after.project_name,
        phase=after.phase.value,
        event_type=event_type or _default_event_type(after),
        summary=summary or _default_summary(project, before, after),
    )
    log_event(
        project.dir,
        "phase_transition",
        from_phase=before.phase.value,
        to_phase=after.phase.value,
        halt_reason=after.halt_reason,
        summary=notification.summary,
    )
    hooks = hooks or installed_hooks()
    best_effort(project, "notification", lambda: hooks.notifier.send(project, notification))
    best_effort(project, "board", lambda: hooks.board.sync(project, after))
    for listener in transition_listeners():
        best_effort(project, "listener", lambda: listener(notification, after))  # noqa: B023
    return after


def _check_allowed(before: Status, phase: Phase, halt_reason: HaltReason | None) -> None:
    if phase is Phase.HALTED:
        if halt_reason is None:
            raise TransitionError("a halt needs a halt_reason")
        if before.phase is Phase.DONE:
            raise TransitionError("a finished project cannot be halted")
        if before.phase is Phase.HALTED and halt_reason is not HaltReason.HUMAN_TERMINATED:
            raise TransitionError(f"project is already halted ({before.halt_reason})")
        return
    if halt_reason is not None:
        raise TransitionError(f"halt_reason given for a move to '{phase}'")
    if before.halt_reason is HaltReason.HUMAN_TERMINATED:
        raise TransitionError("the project was terminated and cannot continue")
    if phase not in _NEXT[before.phase]:
        raise TransitionError(f"cannot move from '{before.phase}' to '{phase}'")


def _next_status(
    before: Status,
    phase: Phase,
    halt_reason: HaltReason | None,
    project_name: str | None,
    deliverable_type: DeliverableType | None,
) -> Status:
    halted = phase is Phase.HALTED
    return before.model_copy(
        update={
            "phase": phase,
            "updated_at": utc_now(),
            "halt_reason": halt_reason if halted else None,
            "halted_from": (before.halted_from or before.phase)
            if halted and before.phase is Phase.HALTED
            else (before.phase if halted else None),
            "project_name": project_name or before.project_name,
            "deliverable_type": deliverable_type or before.deliverable_type,
            "archived_at": None,
        }
    )


def _default_event_type(status: Status) -> EventType:
    if status.phase is Phase.HALTED:
        return _halt_event_type(status)
    if status.phase is Phase.DONE:
        return "convergence_success"
    if status.phase in (Phase.HUMAN_REVIEW, Phase.SPEC_BUILDING):
        return "human_needed"
    return "milestone_complete"


def _halt_event_type(status: Status) -> EventType:
    """A guard's halt is `guard_triggered`; one that waits for the person's decision or words
    (stuck, plan_incomplete, any halt of Phases 1–2) `human_needed`; the rest an `error`."""
    reason = status.halt_reason
    if reason is HaltReason.HUMAN_TERMINATED:
        return "error"
    if str(reason).startswith("guard_"):
        return "guard_triggered"
    if reason in DECISION_HALTS or status.halted_from in CONVERSATION_PHASES:
        return "human_needed"
    return "error"


def _default_summary(project: Project, before: Status, status: Status) -> str:
    name = status.project_name or project.id
    if status.phase is Phase.HALTED:
        where = f"halted in {status.halted_from}: {status.halt_reason}"
        return f"Project '{name}' — {where}. Review needed."
    what = _MILESTONES.get((before.phase, status.phase), f"now in {status.phase}.")
    return f"Project '{name}' — {what}"
