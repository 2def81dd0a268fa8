from __future__ import annotations

import pytest

from thoughtforge.config import Config
from thoughtforge.core.creation import create_project
from thoughtforge.core.hooks import Notification, TransitionHooks, add_transition_listener
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import read_events
from thoughtforge.core.state import Status, read_status, write_status
from thoughtforge.core.transition import transition
from thoughtforge.errors import TransitionError
from thoughtforge.models import DeliverableType, HaltReason, Phase


class RecordingNotifier:
    def __init__(self) -> None:
        self.sent: list[Notification] = []

    def send(self, project: Project, notification: Notification) -> None:
        self.sent.append(notification)


class RecordingBoard:
    def __init__(self) -> None:
        self.synced: list[tuple[str, Status]] = []

    def sync(self, project: Project, status: Status) -> None:
        self.synced.append((project.id, status))


class BrokenHook:
    def send(self, project: Project, notification: Notification) -> None:
        raise ConnectionError("ntfy unreachable")

    def sync(self, project: Project, status: Status) -> None:
        raise TimeoutError("board down")


@pytest.fixture
def project(config: Config) -> Project:
    return create_project(config)


def test_writes_status_logs_and_calls_both_hooks(project: Project) -> None:
    notifier, board = RecordingNotifier(), RecordingBoard()
    hooks = TransitionHooks(notifier=notifier, board=board)
    transition(project, Phase.DISTILLING, hooks=hooks)
    after = transition(
        project,
        Phase.HUMAN_REVIEW,
        project_name="Wedding Plan",
        deliverable_type=DeliverableType.PLAN,
        hooks=hooks,
    )
    assert read_status(project.dir) == after
    assert after.phase is Phase.HUMAN_REVIEW and after.project_name == "Wedding Plan"
    assert [n.phase for n in notifier.sent] == ["distilling", "human_review"]
    assert notifier.sent[1].event_type == "human_needed"
    assert notifier.sent[1].project_name == "Wedding Plan"
    assert [s.phase for _, s in board.synced] == [Phase.DISTILLING, Phase.HUMAN_REVIEW]
    moves = [
        (e["from_phase"], e["to_phase"])
        for e in read_events(project.dir)
        if e["event"] == "phase_transition"
    ]
    assert moves == [("brain_dump", "distilling"), ("distilling", "human_review")]


def test_hook_failures_are_logged_warnings_not_errors(project: Project) -> None:
    broken = BrokenHook()
    status = transition(
        project, Phase.DISTILLING, hooks=TransitionHooks(notifier=broken, board=broken)
    )
    assert status.phase is Phase.DISTILLING
    failures = [e for e in read_events(project.dir) if e["event"] == "hook_failed"]
    assert {e["hook"] for e in failures} == {"notification", "board"}
    assert all(e["level"] == "warning" for e in failures)


def test_halt_records_reason_and_origin_then_resume_clears_them(project: Project) -> None:
    transition(project, Phase.DISTILLING)
    halted = transition(project, Phase.HALTED, halt_reason=HaltReason.AGENT_FAILURE)
    assert (halted.halt_reason, halted.halted_from) == (HaltReason.AGENT_FAILURE, Phase.DISTILLING)
    resumed = transition(project, Phase.DISTILLING)
    assert resumed.halt_reason is None and resumed.halted_from is None


def test_terminate_keeps_origin_and_is_final(project: Project) -> None:
    transition(project, Phase.DISTILLING)
    transition(project, Phase.HALTED, halt_reason=HaltReason.AGENT_FAILURE)
    terminated = transition(project, Phase.HALTED, halt_reason=HaltReason.HUMAN_TERMINATED)
    assert terminated.halted_from is Phase.DISTILLING
    with pytest.raises(TransitionError, match="terminated"):
        transition(project, Phase.DISTILLING)


def _halted_in(project: Project, phase: Phase, reason: HaltReason) -> str:
    """The event type of a halt of `reason` met in `phase`."""
    status = read_status(project.dir).model_copy(update={"phase": phase})
    write_status(project.dir, status)
    notifier = RecordingNotifier()
    transition(project, Phase.HALTED, halt_reason=reason, hooks=TransitionHooks(notifier=notifier))
    assert reason.value in notifier.sent[-1].summary
    return notifier.sent[-1].event_type


@pytest.mark.parametrize(
    ("phase", "reason", "event_type"),
    [
        (Phase.BUILDING, HaltReason.STUCK, "human_needed"),
        (Phase.BUILDING, HaltReason.BUILD_INCOMPLETE, "human_needed"),
        (Phase.BUILDING, HaltReason.PLAN_INCOMPLETE, "human_needed"),
        (Phase.SPEC_BUILDING, HaltReason.SPEC_INCOMPLETE, "human_needed"),
        (Phase.DISTILLING, HaltReason.AGENT_FAILURE, "human_needed"),
        (Phase.SPEC_BUILDING, HaltReason.ANSWER_UNUSABLE, "human_needed"),
        (Phase.BUILDING, HaltReason.AGENT_FAILURE, "error"),
        (Phase.POLISHING, HaltReason.REVIEW_MALFORMED, "error"),
        (Phase.POLISHING, HaltReason.GUARD_FABRICATION, "guard_triggered"),
    ],
)
def test_a_halt_that_waits_for_the_person_is_human_needed(
    project: Project, phase: Phase, reason: HaltReason, event_type: str
) -> None:
    """Before, a stuck build, a refused plan and every Phase 1–2 halt were sent as errors."""
    assert _halted_in(project, phase, reason) == event_type


@pytest.mark.parametrize(
    ("target", "reason", "message"),
    [
        (Phase.POLISHING, None, "cannot move from 'brain_dump' to 'polishing'"),
        (Phase.HALTED, None, "needs a halt_reason"),
        (Phase.DISTILLING, HaltReason.STUCK, "halt_reason given"),
    ],
)
def test_illegal_moves_are_refused_and_change_nothing(
    project: Project, target: Phase, reason: HaltReason | None, message: str
) -> None:
    before = (project.dir / "status.json").read_text()
    with pytest.raises(TransitionError, match=message):
        transition(project, target, halt_reason=reason)
    assert (project.dir / "status.json").read_text() == before


def test_listeners_hear_every_transition_and_a_broken_one_is_only_logged(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    from thoughtforge.core import hooks

    monkeypatch.setattr(hooks, "_listeners", [])
    heard: list[tuple[str, Phase]] = []

    def broken(notification: Notification, status: Status) -> None:
        raise RuntimeError("event bus down")

    add_transition_listener(broken)
    add_transition_listener(lambda n, s: heard.append((n.project_id, s.phase)))
    add_transition_listener(broken)  # once, however often added
    transition(project, Phase.DISTILLING)
    assert heard == [(project.id, Phase.DISTILLING)]
    assert read_status(project.dir).phase is Phase.DISTILLING
    failures = [e for e in read_events(project.dir) if e["event"] == "hook_failed"]
    assert len(failures) == 1 and "event bus down" in failures[0]["error"]


@pytest.mark.parametrize("back_to", [Phase.POLISHING, Phase.SPEC_BUILDING, Phase.BUILDING])
def test_a_done_project_goes_back_only_to_repolish_revise_or_a_rolled_back_phase(
    project: Project, back_to: Phase
) -> None:
    """Re-polish and rollback to Phase 3's end → polishing; revise → spec_building; rollback to
    Phase 2's end → building. Never back into Phase 1."""
    status = read_status(project.dir).model_copy(update={"phase": Phase.DONE})
    write_status(project.dir, status)
    with pytest.raises(TransitionError, match="cannot move from 'done' to 'distilling'"):
        transition(project, Phase.DISTILLING)
    assert transition(project, back_to).phase is back_to
