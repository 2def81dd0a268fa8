"""Waiting for the human: the form each human step shows, and how a run waits for it.

In the Prefect UI each wait shows its description (the AI's latest message, then one line saying
how to move on) above a form that offers only the actions valid at that step. A run started from
a deployment *suspends*, so no process is held while the human thinks, and re-enters from the top
when the answer arrives; a run started in a process pauses. Either way the wait is recorded in the
project (`core.waiting`), so the re-entered run meets it under the same key and is handed the
answer exactly once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

from prefect import runtime
from prefect.flow_runs import pause_flow_run
from prefect.input import RunInput
from pydantic import Field

from thoughtforge.adapters.agents.graceful_stop import stop_pending, take_next_step
from thoughtforge.core.project import Project
from thoughtforge.core.state import read_chat, utc_now
from thoughtforge.core.waiting import Waiting, clear_wait, current_wait, record_wait
from thoughtforge.flows.runtime.holding import HOLD_POLL_SECONDS, collect, hold
from thoughtforge.flows.runtime.limits import slot_given_back
from thoughtforge.flows.runtime.server_in_use import api_url_of_this_process, run_page
from thoughtforge.models import PHASE_ONE, Phase

HUMAN_WAIT_SECONDS = 30 * 24 * 3600
_MESSAGE = Field("", description="Your message: an answer, a correction, more of the brain dump.")


class ChatTurn(RunInput):
    """A turn in Phases 1–2: a message, an action, or both."""

    message: str = _MESSAGE
    action: str = "send"


class IntakeTurn(ChatTurn):
    action: Literal["send", "distill", "terminate"] = Field(
        "send",
        description=(
            "send: add the message. distill: everything is in, distil it now. terminate: stop "
            "the project for good."
        ),
    )


class ReviewTurn(ChatTurn):
    action: Literal["send", "realign", "confirm", "terminate"] = Field(
        "send",
        description=(
            "send: correct the distillation with the message. realign: drop the messages after "
            "your last real correction and distil again. confirm: lock the intent. terminate: "
            "stop the project for good."
        ),
    )


class SpecTurn(ChatTurn):
    action: Literal["send", "confirm", "accept_unresolved", "terminate"] = Field(
        "send",
        description=(
            "send: answer or correct the proposal. confirm: lock the spec and build. "
            "accept_unresolved: lock it with the open items written in as unresolved. "
            "terminate: stop the project for good."
        ),
    )


_AGENT = Field(
    "",
    description="Optional: switch the project to this agent (a name in agents.available) first.",
)


class HaltDecision(RunInput):
    """The project halted: continue it (with another agent, if you like), or stop it for good."""

    action: Literal["resume", "terminate"] = Field(
        "resume", description="resume: continue where it halted. terminate: stop for good."
    )
    agent: str = _AGENT


class PolishHaltDecision(RunInput):
    """The polish loop halted: continue it, accept the deliverable as it is, or stop."""

    action: Literal["resume", "override", "terminate"] = Field(
        "resume",
        description=(
            "resume: go on with the next iteration. override: accept the deliverable as it is "
            "(project done). terminate: stop for good."
        ),
    )
    agent: str = _AGENT


class PlanGateDecision(RunInput):
    """The Plan Completeness Gate refused the plan: build from it anyway, or stop."""

    action: Literal["override", "terminate"] = Field(
        "override",
        description="override: build from the plan as it is. terminate: stop for good.",
    )


class StuckDecision(RunInput):
    """The builder is stuck on a decision only the human can make: answer it, or stop."""

    action: Literal["provide_input", "terminate"] = Field(
        "provide_input",
        description="provide_input: the builder asks again with your message. terminate: stop.",
    )
    message: str = Field("", description="The decision the builder asked for.")


InputT = TypeVar("InputT", bound=RunInput)
T = TypeVar("T")


@dataclass(frozen=True)
class HumanStep(Generic[InputT]):
    """One kind of question: its form, the line that says how to move on, and (for a chat turn)
    the action to suggest when a turn says nothing."""

    form: type[InputT]
    move_on: str
    instead: str = ""
    answers_late: frozenset[Phase] = frozenset()
    """The phases whose messages sent while the AI worked this step's `send` answers at once,
    without waiting (`turns.take_turn`)."""


@dataclass(frozen=True)
class Answered(Generic[InputT]):
    """The person's answer as the run receives it, and the wait it answers (what a door sends
    is `actions.answering.Answer`)."""

    value: InputT
    wait: Waiting


INTAKE = HumanStep(
    IntakeTurn,
    "To move on: write more and Submit, or choose **distill** once everything is in.",
    instead="**distill**",
)
REVIEW = HumanStep(
    ReviewTurn,
    "To move on: send corrections, or choose **confirm** to lock the intent and write the spec.",
    instead="**confirm**",
    answers_late=PHASE_ONE,
)
SPEC = HumanStep(
    SpecTurn,
    "To move on: answer or correct in the message, or choose **confirm** to lock the spec "
    "(**accept_unresolved** locks it with the open items marked unresolved).",
    instead="**confirm**",
    answers_late=frozenset({Phase.SPEC_BUILDING}),
)
HALT = HumanStep(
    HaltDecision,
    "To move on: choose **resume** (with another agent in *agent*, if you like) or "
    "**terminate**, then Submit.",
)
POLISH_HALT = HumanStep(
    PolishHaltDecision,
    "To move on: choose **resume** (with another agent in *agent*, if you like), **override** "
    "or **terminate**, then Submit.",
)
PLAN_GATE = HumanStep(
    PlanGateDecision, "To move on: choose **override** or **terminate**, then Submit."
)
STUCK = HumanStep(
    StuckDecision, "To move on: write the decision in the message and Submit, or **terminate**."
)


def wait_for_human(project: Project, step: HumanStep[InputT], description: str) -> Answered[InputT]:
    """Block (or suspend) until the human answers; the caller clears the wait once it has taken
    the answer (`core.clear_wait`), so the next question gets a new key."""
    recorded = current_wait(project.dir)
    waiting = _wait_for(project, step.form.__name__, recorded)
    form = step.form.with_initial_data(description=f"{description}\n\n---\n\n{step.move_on}")
    if waiting is not recorded:  # a re-entry meets its own wait again: said when it began
        print(f"Waiting for you: {_where_to_answer(project, waiting)}")
    with slot_given_back():
        value = _answer(project, form, waiting)
    return Answered(value=value, wait=waiting)


def _answer(project: Project, form: type[InputT], waiting: Waiting) -> InputT:
    """A run in a process of its own pauses; a deployment's run holds its process while the
    person is around, then suspends (`flows.runtime.holding`); a re-entered one collects the answer.
    A run told to stop while its last call finished stops here, or (a deployment's) suspends."""
    if not runtime.deployment.id:

        def pause() -> InputT:
            answer: InputT = pause_flow_run(  # type: ignore[call-overload]  # a float poll_interval works
                form,
                key=waiting.key,
                timeout=HUMAN_WAIT_SECONDS,
                poll_interval=HOLD_POLL_SECONDS,
            )
            return answer

        return _in_this_process(project, pause)
    if not waiting.away and not stop_pending():
        answer = _in_this_process(project, lambda: hold(form, waiting.key, HUMAN_WAIT_SECONDS))
        if answer is not None:
            return answer
        record_wait(project.dir, waiting.model_copy(update={"away": True}))
    return collect(form, waiting.key, HUMAN_WAIT_SECONDS)


def _in_this_process(project: Project, wait: Callable[[], T]) -> T:
    """A wait kept in this process: when the process stops (Ctrl-C, SIGTERM), nobody is left to
    take the answer, so the wait goes with it; a run told to stop meanwhile stops before it."""
    try:
        take_next_step()
        return wait()
    except BaseException:
        clear_wait(project.dir)
        raise


def _wait_for(project: Project, kind: str, recorded: Waiting | None) -> Waiting:
    """The recorded wait when this run re-enters the same question, else a new one.

    A recorded wait belongs to the run that recorded it: another run's (one killed while it
    waited) names a run and a server that may be gone, so it is replaced, never reused.
    The key must be new for every question (Prefect refuses a pause key twice, and hands back the
    first answer instead); the chat grows and the status stamp moves between any two questions.
    Prefect accepts only lowercase letters, digits and dashes in it.
    """
    status = project.status()
    this_run = runtime.flow_run.id
    if (
        recorded
        and recorded.flow_run_id == this_run
        and recorded.kind == kind
        and recorded.phase is status.phase
    ):
        return recorded
    chat_length = len(read_chat(project.dir))
    stamp = int(status.updated_at.timestamp() * 1_000_000)
    key = f"{kind.lower()}-{status.phase.value.replace('_', '-')}-{chat_length}-{stamp}"
    waiting = Waiting(
        key=key,
        kind=kind,
        phase=status.phase,
        chat_length=chat_length,
        since=utc_now(),
        flow_run_id=this_run,
        api_url=api_url_of_this_process(),
        page=run_page(),
    )
    return record_wait(project.dir, waiting)


def _where_to_answer(project: Project, waiting: Waiting) -> str:
    reply = f"`thoughtforge {waiting.verbs} {project.id}`"
    return f"{waiting.page} (Resume), or {reply}" if waiting.page else reply


def halt_prompt(reason: str) -> str:
    """The form's description for a halt decision."""
    return f"### The project halted\n\n{reason}"
