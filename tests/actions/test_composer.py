"""The composer offers exactly what the run's current wait takes, and nothing once nothing can
go on."""

from __future__ import annotations

import typing
from datetime import UTC, datetime

import pytest

from thoughtforge.actions.composer import WAITS_FOR, composer_for
from thoughtforge.catalogue import FORM_ACTIONS, STEP_ACTIONS
from thoughtforge.core.course_claim import Claim
from thoughtforge.core.process_identity import this_process
from thoughtforge.core.state import Status
from thoughtforge.core.waiting import Waiting
from thoughtforge.flows import human_input
from thoughtforge.halt_advice import HALT_ADVICE
from thoughtforge.models import HaltReason, Phase

NOW = datetime(2026, 11, 23, tzinfo=UTC)


def _status(phase: Phase, **fields: object) -> Status:
    return Status(phase=phase, agent="demo", created_at=NOW, updated_at=NOW, **fields)


def _wait(kind: str, phase: Phase) -> Waiting:
    return Waiting(key=f"{kind.lower()}-1", kind=kind, phase=phase, chat_length=1, since=NOW)


def _names(status: Status, waiting: Waiting | None = None, busy: bool = False) -> list[str]:
    return [a.name for a in composer_for(status, waiting, busy).actions]


def test_the_table_is_the_flows_forms() -> None:
    """Each form a run waits with, and the actions its `action` field allows, as the page offers."""
    steps = [
        value for value in vars(human_input).values() if isinstance(value, human_input.HumanStep)
    ]
    forms = {
        step.form.__name__: typing.get_args(step.form.model_fields["action"].annotation)
        for step in steps
    }
    assert forms == FORM_ACTIONS
    assert WAITS_FOR.keys() == FORM_ACTIONS.keys()


@pytest.mark.parametrize(
    ("kind", "phase", "expected"),
    [
        ("IntakeTurn", Phase.BRAIN_DUMP, ["send", "distill", "terminate"]),
        ("ReviewTurn", Phase.HUMAN_REVIEW, ["send", "realign", "confirm", "terminate"]),
        ("SpecTurn", Phase.SPEC_BUILDING, ["send", "confirm", "accept_unresolved", "terminate"]),
        ("PolishHaltDecision", Phase.HALTED, ["resume", "override", "terminate"]),
        ("StuckDecision", Phase.HALTED, ["provide_input", "terminate"]),
    ],
)
def test_a_recorded_wait_decides(kind: str, phase: Phase, expected: list[str]) -> None:
    assert _names(_status(phase), _wait(kind, phase)) == expected


@pytest.mark.parametrize(
    ("reason", "origin", "expected"),
    [
        (
            HaltReason.GUARD_HALLUCINATION,
            Phase.POLISHING,
            ["resume", "override", "revise", "terminate"],
        ),
        (HaltReason.STUCK, Phase.BUILDING, ["provide_input", "revise", "terminate"]),
        (HaltReason.PLAN_INCOMPLETE, Phase.BUILDING, ["override", "revise", "terminate"]),
        (HaltReason.AGENT_FAILURE, Phase.DISTILLING, ["resume", "terminate"]),
    ],
)
def test_a_halt_without_a_waiting_run_offers_what_its_reason_allows(
    reason: HaltReason, origin: Phase, expected: list[str]
) -> None:
    assert _names(_status(Phase.HALTED, halt_reason=reason, halted_from=origin)) == expected


def test_a_working_run_takes_messages_only_and_an_idle_project_can_be_started() -> None:
    working = composer_for(_status(Phase.POLISHING), None, run_busy=True)
    assert [a.name for a in working.actions] == ["send"] and "working" in working.note
    assert working.note.endswith("a message is kept; it will be read at the next polish iteration.")
    idle = composer_for(_status(Phase.SPEC_BUILDING), None, run_busy=False)
    assert [a.name for a in idle.actions] == list(STEP_ACTIONS["idle"])  # the catalogue's step
    assert idle.allows("send") and idle.allows("start")
    crashed = composer_for(_status(Phase.POLISHING), None, run_busy=False)
    assert "stopped mid-phase" in crashed.note and crashed.allows("start")


def test_a_finished_project_takes_a_change_request_and_a_terminated_one_nothing() -> None:
    assert _names(_status(Phase.DONE)) == ["revise"]
    terminated = _status(
        Phase.HALTED, halt_reason=HaltReason.HUMAN_TERMINATED, halted_from=Phase.BUILDING
    )
    assert _names(terminated, _wait("HaltDecision", Phase.HALTED)) == []


def test_terminate_is_the_only_dangerous_action_and_send_needs_a_message() -> None:
    composer = composer_for(_status(Phase.HALTED), _wait("StuckDecision", Phase.HALTED), False)
    flags = {a.name: (a.needs_message, a.danger) for a in composer.actions}
    assert flags == {"provide_input": (True, False), "terminate": (False, True)}


@pytest.mark.parametrize(
    "reason",
    [
        HaltReason.GUARD_FIX_UNCHANGED,
        HaltReason.GUARD_FIX_CIRCULAR,
        HaltReason.GUARD_ISSUES_PERSIST,
        HaltReason.FIX_OUTPUT_INVALID,
    ],
)
def test_a_polish_halt_says_what_the_person_can_do_about_it(reason: HaltReason) -> None:
    """The decision form's note carries the halt's advice, waiting or not."""
    status = _status(Phase.HALTED, halt_reason=reason, halted_from=Phase.POLISHING)
    advice = HALT_ADVICE[reason]
    assert advice in composer_for(status, None, False).note
    waiting = composer_for(status, _wait("PolishHaltDecision", Phase.HALTED), False)
    assert advice in waiting.note and waiting.note.startswith("Waiting for a decision")


def test_every_halt_reason_of_the_polish_loop_has_advice() -> None:
    polish_halts = {r for r in HaltReason if r.value.startswith("guard_")} | {
        HaltReason.FIX_OUTPUT_INVALID,
        HaltReason.REVIEW_MALFORMED,
    }
    assert polish_halts <= HALT_ADVICE.keys()


def test_a_run_on_its_way_offers_no_second_start_and_says_so() -> None:
    """Before, "No run is working on this project: Start the run" showed while it started."""
    claim = Claim(
        why="start", since=datetime.now(UTC), owner=this_process(), run_name="healthy-gecko"
    )
    composer = composer_for(_status(Phase.BRAIN_DUMP), None, run_busy=False, starting=claim)
    assert [a.name for a in composer.actions] == ["send"]
    assert composer.starting and "Starting a run (healthy-gecko)" in composer.note


def test_an_answer_waking_a_suspended_run_says_so_instead_of_the_old_wait() -> None:
    """Before, "Waiting for corrections or Confirm" stayed for the seconds the run took."""
    claim = Claim(why="wake", since=datetime.now(UTC), owner=this_process())
    wait = _wait("ReviewTurn", Phase.HUMAN_REVIEW)
    composer = composer_for(_status(Phase.HUMAN_REVIEW), wait, run_busy=True, starting=claim)
    assert composer.note.startswith("Waking the run") and composer.starting


def test_every_halt_whose_decision_goes_on_can_switch_the_agent() -> None:
    """Generic over halt reasons: any reason, the ones added later too."""
    for reason in HaltReason:
        if reason is HaltReason.HUMAN_TERMINATED:
            continue
        status = _status(Phase.HALTED).model_copy(
            update={"halt_reason": reason, "halted_from": Phase.POLISHING}
        )
        composer = composer_for(status, None, run_busy=False)
        assert composer.switches_agent, reason
    assert not composer_for(_status(Phase.SPEC_BUILDING), None, run_busy=True).switches_agent
