from __future__ import annotations

import logging

import pytest

from thoughtforge.config import Config
from thoughtforge.core.creation import create_project
from thoughtforge.core.hooks import Notification, TransitionHooks, install_hooks
from thoughtforge.core.project import Project
from thoughtforge.core.state import read_status
from thoughtforge.core.transition import transition
from thoughtforge.errors import (
    AgentFailure,
    AttemptFailure,
    FailureKind,
    ReplyCutOff,
    StateFileError,
)
from thoughtforge.flows.human_input import IntakeTurn, ReviewTurn, SpecTurn
from thoughtforge.flows.intake import _apply as run_intake_turn
from thoughtforge.flows.runtime.console import make_run_output_inert
from thoughtforge.flows.turns import halt_on_failure, latest_ai_message, state_files_readable
from thoughtforge.models import HaltReason, Phase
from thoughtforge.phases.intake import DistillationMalformed

TIMED_OUT = AttemptFailure(kind=FailureKind.TIMED_OUT, reason="timed out")


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (
            AgentFailure("demo", "spec-building", [TIMED_OUT, TIMED_OUT]),
            HaltReason.AGENT_FAILURE,
        ),
        (PermissionError(13, "Permission denied", "docs/spec.md"), HaltReason.FILE_SYSTEM_ERROR),
        (DistillationMalformed("it has no ## Objective section"), HaltReason.ANSWER_UNUSABLE),
        (
            ReplyCutOff(
                "smol",
                "brain-dump-intake",
                [AttemptFailure(kind=FailureKind.CUT_OFF, reason="reply cut off at 9 tokens")],
            ),
            HaltReason.ANSWER_UNUSABLE,
        ),
    ],
)
def test_failures_halt_with_their_reason_and_tell_the_chat(
    config: Config, error: Exception, reason: HaltReason
) -> None:
    project = create_project(config, brain_dump="x")
    transition(project, Phase.DISTILLING)
    with halt_on_failure(project):
        raise error
    status = read_status(project.dir)
    assert (status.phase, status.halt_reason, status.halted_from) == (
        Phase.HALTED,
        reason,
        Phase.DISTILLING,
    )
    assert "resume" in latest_ai_message(project)


def test_an_unusable_answer_halts_with_its_reason_and_what_helps(config: Config) -> None:
    """Before, a format problem read "The agent failed twice … Fix the cause" (agent_failure)."""
    project = create_project(config, brain_dump="x")
    transition(project, Phase.DISTILLING)
    with halt_on_failure(project):
        raise DistillationMalformed("it has no ## Objective section")
    said = latest_ai_message(project)
    assert said.startswith(
        "The agent's answer was unusable twice: it has no ## Objective section. What helps: "
        "another agent"
    )
    assert "failed" not in said and "thoughtforge agent PROJECT NAME" in said


def test_other_errors_are_not_swallowed(config: Config) -> None:
    project = create_project(config, brain_dump="x")
    with pytest.raises(ValueError), halt_on_failure(project):
        raise ValueError("a bug")
    assert read_status(project.dir).phase is Phase.BRAIN_DUMP


@pytest.mark.filterwarnings("ignore:Logger 'prefect.flow_runs' attempted to send logs")
def test_what_a_run_prints_reaches_the_terminal_inert() -> None:
    """Before, ESC sequences in a name or an AI message were printed raw by the run log."""
    make_run_output_inert()
    logger = logging.getLogger("prefect.flow_runs")
    seen: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: seen.append(record.getMessage())  # type: ignore[method-assign]
    logger.addHandler(handler)
    try:
        logger.warning("Intent confirmed: %s (plan).", "Wed\x1b]0;pwned\x07ding\x1b[2J")
    finally:
        logger.removeHandler(handler)
    assert seen == ["Intent confirmed: Wed\\x1b]0;pwned\\x07ding\\x1b[2J (plan)."]


def test_terminate_is_offered_and_taken_at_every_chat_step(config: Config) -> None:
    """Before, `terminate` was refused at a human step because the project was not halted."""
    for form in (IntakeTurn, ReviewTurn, SpecTurn):
        assert form(action="terminate").action == "terminate"
    project = create_project(config, brain_dump="x")
    transition(project, Phase.DISTILLING)
    transition(project, Phase.HUMAN_REVIEW)

    run_intake_turn(project, config, Phase.HUMAN_REVIEW, ReviewTurn(action="terminate"))

    status = read_status(project.dir)
    assert (status.phase, status.halt_reason, status.halted_from) == (
        Phase.HALTED,
        HaltReason.HUMAN_TERMINATED,
        Phase.HUMAN_REVIEW,
    )


def test_a_corrupt_status_found_by_a_run_is_notified_and_named(config: Config) -> None:
    """Before, a run that met an unreadable status.json stopped and told no one."""
    project = create_project(config, brain_dump="x")
    (project.dir / "status.json").write_text('{"phase": "nowhere"')
    sent: list[Notification] = []

    class Recording:
        def send(self, project: Project, notification: Notification) -> None:
            sent.append(notification)

    previous = install_hooks(TransitionHooks(notifier=Recording()))
    try:
        with pytest.raises(StateFileError, match=r"status\.json"):
            state_files_readable(project)
    finally:
        install_hooks(previous)
    [told] = sent
    assert (told.event_type, told.phase, told.project_id) == ("error", "unknown", project.id)
    assert "status.json" in told.summary and "is not valid JSON" in told.summary
    assert (project.dir / "status.json").read_text() == '{"phase": "nowhere"', "left as it was"
