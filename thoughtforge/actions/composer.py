"""What the person can do on a project right now, by the wait its run is in.

The composer shows these as buttons and the server accepts only these, so the page can never send
what the run would refuse. A recorded wait names its form (`core.Waiting.kind`), whose actions
are the catalogue's (`catalogue.FORM_ACTIONS`, the flows' `human_input` forms checked against it
by a test). Without a wait, the project's files decide: a halted project takes the decisions the
catalogue gives its halt, a project a run is working on takes messages (queued for the AI's next
call), and one nothing works on can be started (`catalogue.STEP_ACTIONS`).
"""

from __future__ import annotations

from pydantic import BaseModel

from thoughtforge.catalogue import (
    ACTIONS,
    AGENT_SWITCH_ACTIONS,
    FORM_ACTIONS,
    STEP_ACTIONS,
    PersonAction,
    halt_decisions,
    halt_label,
)
from thoughtforge.core.course_claim import Claim
from thoughtforge.core.state import Status
from thoughtforge.core.waiting import Waiting
from thoughtforge.halt_advice import HALT_ADVICE
from thoughtforge.models import AUTONOMOUS_PHASES, HaltReason, Phase
from thoughtforge.phases.chat import when_answered

WAITS_FOR: dict[str, str] = {
    "IntakeTurn": "more detail, or Distill",
    "ReviewTurn": "corrections or Confirm",
    "SpecTurn": "answers or Confirm",
    "HaltDecision": "a decision on the halt",
    "PolishHaltDecision": "a decision on the halted polish loop",
    "PlanGateDecision": "a decision on the refused plan",
    "StuckDecision": "your input to the stuck build",
}
"""What the person is asked for, in the inbox's (and `status ID`'s) words: true whether or
not they have said anything yet."""

_ALWAYS_THERE = frozenset({"send", "revise"})
"""Actions offered whatever the step, so never its next one."""


class Composer(BaseModel):
    """The actions offered now, and one line saying why these."""

    actions: list[PersonAction]
    note: str

    starting: bool = False
    """A run is on its way (asked for, or woken by an answer): the page says so and waits."""

    def allows(self, name: str) -> bool:
        return any(action.name == name for action in self.actions)

    @property
    def primary(self) -> str | None:
        """The step's next action, the one button drawn as primary: the one the main key
        presses, else a decision that needs the person's words (Provide input); never Send or
        Revise, which are there whatever the step."""
        candidates = [action for action in self.actions if action.shortcut] or [
            action
            for action in self.actions
            if action.needs_message and action.name not in _ALWAYS_THERE
        ]
        return candidates[0].name if candidates else None

    @property
    def switches_agent(self) -> bool:
        """Whether the decision offered here may come with another agent (halt and stuck
        forms): any halt whose decisions go on with an agent call, whatever its reason."""
        return any(action.name in AGENT_SWITCH_ACTIONS for action in self.actions)


def composer_for(
    status: Status, waiting: Waiting | None, run_busy: bool, starting: Claim | None = None
) -> Composer:
    """The actions valid now; `run_busy` is whether a run works on the project or is about to
    (scheduled, starting, re-entering after an answer); `starting`, the claim of a run asked for
    that has not taken the project's lock yet (`core.run_start`)."""
    if status.phase is Phase.DONE:
        return Composer(
            actions=_named(STEP_ACTIONS["done"]),
            note="Done: the deliverable is final. To change it, write what should change and "
            "press Revise (a new revision rebuilds only what the change touches).",
        )
    if status.halt_reason is HaltReason.HUMAN_TERMINATED:
        return Composer(actions=[], note="Terminated: this project will not go on.")
    if starting is not None and (starting.why == "wake" or waiting is None):
        run = f" ({starting.run_name})" if starting.run_name else ""
        note = (
            f"Waking the run{run}: it suspended after asking, and starts again to take your answer."
            if starting.why == "wake"
            else f"Starting a run{run}: it asks you as soon as it is up."
        )
        return Composer(actions=_named(STEP_ACTIONS["working"]), note=note, starting=True)
    advice = HALT_ADVICE.get(status.halt_reason) if status.halt_reason else None
    to_act = f" ({advice})" if advice and status.phase is Phase.HALTED else ""
    if waiting is not None and waiting.kind in FORM_ACTIONS:
        return Composer(
            actions=_named(FORM_ACTIONS[waiting.kind]),
            note=f"Waiting for {WAITS_FOR[waiting.kind]}{to_act}.",
        )
    if status.phase is Phase.HALTED:
        return Composer(
            actions=_named(_halt_decisions(status)),
            note=f"Halted ({halt_label(status.halt_reason)}{to_act}): no run is waiting; a "
            "decision starts one.",
        )
    if run_busy:
        return Composer(
            actions=_named(STEP_ACTIONS["working"]),
            note=f"The AI is working: a message is kept; {when_answered(status)}.",
            starting=starting is not None,
        )
    stopped = " (its last run stopped mid-phase)" if status.phase in AUTONOMOUS_PHASES else ""
    return Composer(
        actions=_named(STEP_ACTIONS["idle"]),
        note=f"No run is working on this project{stopped}: Start the run to go on.",
    )


def _halt_decisions(status: Status) -> tuple[str, ...]:
    """The catalogue's, as the run would ask them; a halt after the spec was locked may also
    take a change request (Revise)."""
    decisions = halt_decisions(status.halt_reason, status.halted_from)
    revisable = ("revise",) if status.halted_from in (Phase.BUILDING, Phase.POLISHING) else ()
    return (*decisions[:-1], *revisable, *decisions[-1:])  # Terminate stays last


def _named(names: tuple[str, ...]) -> list[PersonAction]:
    return [ACTIONS[name] for name in names]
