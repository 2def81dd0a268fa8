"""The person's answer to a project, from whichever door: checked against what the project takes
now (`run_state.current_composer`), the words stored first, then handed to the waiting run
(`hand_over`); with no run waiting, a decision is applied to the files, and a run is started the
door's way (`Starter`).

What carries out each action is the function its catalogue row names (`handler`): the
dispatch is that table, so a new action's implementation is registered by its row. The page and
the MCP server call `take_answer`; the CLI, which runs the pipeline in its own
process, calls `answer_in_chat` and `decide` and runs what follows itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from functools import cache
from importlib import import_module
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel, Field

from thoughtforge.actions.agent_switch import switch_agent
from thoughtforge.actions.budget import raise_on_halt
from thoughtforge.actions.composer import Composer
from thoughtforge.actions.hand_over import Delivery, answer_in_chat, hand_over, kept_note
from thoughtforge.actions.revising import revising
from thoughtforge.actions.run_state import composer_of, project_view
from thoughtforge.actions.starting import Started, start_run
from thoughtforge.bounded_input import MAX_MESSAGE_CHARS
from thoughtforge.catalogue import ACTIONS, AGENT_SWITCH_ACTIONS, Decision, RunAnswer
from thoughtforge.config import Config
from thoughtforge.core.course_claim import Claim, ProjectClaimed
from thoughtforge.core.project import Project
from thoughtforge.core.project_view import ProjectView, RunPlace, read_view
from thoughtforge.core.run_start import StartClaim, claimed_start
from thoughtforge.core.state import Status
from thoughtforge.errors import ActionRefused
from thoughtforge.models import Phase, Usd
from thoughtforge.phases import add_human_message, human_decisions
from thoughtforge.phases.chat import when_answered, when_read
from thoughtforge.stack.api import AnsweredMeanwhile

BUSY_SECONDS = 20.0
"""How long the page's action waits for a run that is about to ask (re-entering after the last
answer)."""


class Starter(Protocol):
    """How a run is started when the answer needs one: the page starts the deployment's
    (`starting.start_run`); the MCP server, with no deployment to run on, starts the CLI's.
    `then` is an answer to hand the run once it asks; `handed`, a revision's claim for the run
    to take over."""

    def __call__(
        self,
        config: Config,
        config_file: Path,
        project: Project,
        then: RunAnswer | None,
        /,
        *,
        handed: Claim | None = None,
    ) -> Started: ...


class Answer(BaseModel):
    action: str
    message: str = ""
    agent: str | None = None
    """With a halt's or a stuck build's decision: the agent to go on with (`switch_agent`)."""
    budget_usd: Usd | None = None
    """With a decision on a `budget_exhausted` halt: the project's new budget in dollars."""


class Outcome(BaseModel):
    """What happened, in a line the door shows."""

    delivery: str
    note: str
    view: ProjectView | None = Field(None, exclude=True)
    """The project's view after the action, where the action knows it without reading it
    again (a revision: the view read under its claim, with what it wrote and the run it
    handed the claim to; Prefect's word as it was asked under the claim). Not part of what a
    door sends: the door renders it."""


class Decided(BaseModel):
    """A decision handed to the waiting run, or (none waiting) applied to the files."""

    handed_over: bool
    waking: bool = False
    """Handed to a suspended run, which restarts to take it."""
    status: Status | None = None
    """The project after the decision was applied here; None when a run took it."""


class Handler(Protocol):
    """What carries out an action a door hands over (its catalogue row's `handler`), from the
    project's view the answer was checked against (None for an action `CHECKED_UNDER_CLAIM`)."""

    def __call__(
        self,
        config: Config,
        config_file: Path,
        project: Project,
        answer: Answer,
        start: Starter,
        /,
        *,
        view: ProjectView | None,
    ) -> Outcome: ...


def take_answer(
    config: Config,
    config_file: Path,
    project: Project,
    answer: Answer,
    start: Starter = start_run,
    *,
    view: ProjectView | None = None,
) -> Outcome:
    """The answer checked against what the project takes now and carried out by its row's
    handler, from one read of the project's view (`view`, when the door has read it for this
    request already); it is read again only under a claim (a wake's, a revision's, a start's).
    An action `CHECKED_UNDER_CLAIM` is read and checked only there."""
    if answer.action in CHECKED_UNDER_CLAIM:
        return handler_of(answer.action)(config, config_file, project, answer, start, view=None)
    view = view or project_view(config, project)
    check_answer(composer_of(view), answer.action, answer.message)
    return handler_of(answer.action)(config, config_file, project, answer, start, view=view)


CHECKED_UNDER_CLAIM = frozenset({"revise"})
"""Actions whose handler reads the view under its own claim and checks the answer there: a view
read before the claim could let a run that started in between be revised under it."""


@cache
def handler_of(action: str) -> Handler:
    """The function the catalogue names for `action` (`module:function` in `thoughtforge.actions`),
    imported when first asked for: the catalogue sits below `actions` and names it by text."""
    named = ACTIONS[action].handler
    if named is None:
        raise ActionRefused(f"{ACTIONS[action].label} is not taken as an answer.")
    module, function = named.split(":")
    handler: Handler = getattr(import_module(f"thoughtforge.actions.{module}"), function)
    return handler


def take_start(
    config: Config,
    config_file: Path,
    project: Project,
    answer: Answer,
    start: Starter,
    /,
    *,
    view: ProjectView | None,
) -> Outcome:
    """Start: a run of a project nothing works on, the door's way."""
    started = start(config, config_file, project, None)
    return Outcome(delivery="started" if started.run_id else "not_started", note=started.note)


def take_revision(
    config: Config,
    config_file: Path,
    project: Project,
    answer: Answer,
    start: Starter,
    /,
    *,
    view: ProjectView | None,
) -> Outcome:
    """Revise: back to Phase 2 with the change request, in a run handed the revision's claim;
    checked from the view read under that claim (`revising.revising`), which, with what the
    revision wrote and the claim handed on, is the view after it."""

    def check(claimed: ProjectView) -> None:
        check_answer(composer_of(claimed), answer.action, answer.message)

    with revising(config, project, answer.message, check=check) as revision:
        started = start(config, config_file, project, None, handed=revision.claim)
    return Outcome(
        delivery="started" if started.run_id else "applied",
        note=f"Revision {revision.revision.number} started: back to Phase 2. {started.note}",
        view=revision.handed_to(started.claim),
    )


def take_decision(
    config: Config,
    config_file: Path,
    project: Project,
    answer: Answer,
    start: Starter,
    /,
    *,
    view: ProjectView | None,
) -> Outcome:
    """A halt's or a stuck build's decision, with the agent to go on with and the new budget
    the door sent beside it."""
    view = view or project_view(config, project)
    if answer.agent and answer.agent != view.status.agent:
        if answer.action not in AGENT_SWITCH_ACTIONS:
            raise ActionRefused(f"'{answer.action}' calls no agent: there is none to switch.")
        switch_agent(config, project, answer.agent)  # as `thoughtforge agent` does
    if answer.budget_usd is not None:
        raise_on_halt(config, project, answer.budget_usd, terminating=answer.action == "terminate")
    return _decision(config, config_file, project, answer, start, view)


def check_answer(composer: Composer, action: str, message: str) -> None:
    """Refuse what the project does not take now, in the words every door shows: an action its
    composer does not offer, an action that sends a message without one, a message too long."""
    if not composer.allows(action):
        named = ACTIONS[action].label if action in ACTIONS else repr(action)
        raise ActionRefused(f"{named} is not possible now. {composer.note}")
    if ACTIONS[action].needs_message and not message.strip():
        raise ActionRefused("Write a message first: this action sends it.")
    if len(message) > MAX_MESSAGE_CHARS:
        raise ActionRefused(
            f"The message is {len(message):,} characters; at most {MAX_MESSAGE_CHARS:,} are "
            "taken. Put a longer text in a file under the project's resources/."
        )


def chat_turn(
    config: Config,
    config_file: Path,
    project: Project,
    answer: Answer,
    start: Starter,
    /,
    *,
    view: ProjectView | None = None,
) -> Outcome:
    """A Phase 1–2 turn; with no run waiting for it, one is started to take it. `view`: the
    project's view the answer was checked against."""
    view = view or read_view(project)
    with _waking(project, view) as wake:
        delivery = answer_in_chat(
            config, project, answer.action, answer.message, busy_seconds=BUSY_SECONDS, view=view
        )
        if delivery is Delivery.HANDED_OVER:
            return _sent(_handed(wake))
    if delivery is Delivery.QUEUED:
        when = when_answered if view.works else when_read
        return Outcome(delivery=delivery, note=f"Kept: {when(project.status())}.")
    if delivery is Delivery.KEPT:
        return Outcome(delivery=delivery, note=kept_note(project, answer.message))
    if delivery is Delivery.NOT_TAKEN:
        phase = project.status().phase
        return Outcome(delivery=delivery, note=f"Kept, but the project is {phase}.")
    started = start(
        config, config_file, project, RunAnswer(action=ACTIONS[answer.action].name, message="")
    )
    return Outcome(delivery="started" if started.run_id else delivery, note=started.note)


def decide(
    config: Config,
    project: Project,
    action: Decision,
    message: str = "",
    *,
    busy_seconds: float,
    on_busy: Callable[[], None] = lambda: None,
    view: ProjectView | None = None,
) -> Decided:
    """A decision on a halt or a stuck build: handed to the run that waits for it, else applied
    to the files (`phases.human_decisions`). Words said beside a decision are stored first, kept
    all the same; `provide_input`'s words are the input itself. `AnsweredMeanwhile` when
    another answer reached the run first. `view`: the project's view the decision was checked
    against, when the caller has read it."""
    stored = bool(message.strip()) and action != "provide_input"
    # provide_input's words are stored by the run, or by `hand_over` if another came first
    run_input = RunAnswer(action=action, message=message if action == "provide_input" else None)
    if stored:
        add_human_message(project, message)
    view = view or read_view(project)
    with _waking(project, view) as wake:
        handed = hand_over(
            config,
            project,
            run_input,
            saved=stored,
            busy_seconds=busy_seconds,
            on_busy=on_busy,
            view=view,
        )
        if handed:
            return Decided(handed_over=True, waking=_handed(wake))
    if action == "provide_input":
        return Decided(handed_over=False, status=human_decisions.provide_input(project, message))
    return Decided(handed_over=False, status=human_decisions.apply(project, action))


def _decision(
    config: Config,
    config_file: Path,
    project: Project,
    answer: Answer,
    start: Starter,
    view: ProjectView,
) -> Outcome:
    action: Decision = answer.action  # type: ignore[assignment]  # the composer allowed it
    try:
        decided = decide(
            config, project, action, answer.message, busy_seconds=BUSY_SECONDS, view=view
        )
    except AnsweredMeanwhile:
        return Outcome(delivery=Delivery.KEPT, note=kept_note(project, answer.message))
    if decided.status is None:
        return _sent(decided.waking)
    status = decided.status
    if status.phase in (Phase.DONE, Phase.HALTED):
        return Outcome(delivery="applied", note=f"Done: the project is {status.phase}.")
    started = start(config, config_file, project, None)
    return Outcome(delivery="applied", note=f"The project goes on ({status.phase}). {started.note}")


@contextmanager
def _waking(project: Project, view: ProjectView) -> Iterator[StartClaim | None]:
    """Around an answer to a run that suspended (no process left): it restarts to take the
    answer, which takes a while, so the page says it is waking until the run holds its lock.
    The claim stays only when the answer was handed over (`StartClaim.keep`)."""
    if view.run is not RunPlace.SUSPENDED:
        yield None
        return
    with ExitStack() as stack:
        try:
            held: StartClaim | None = stack.enter_context(claimed_start(project, "wake"))
        except ProjectClaimed:  # a wake already claimed, or a brief archive: the answer goes on
            held = None
        yield held


def _handed(wake: StartClaim | None) -> bool:
    """The answer reached the run: a wake claim made for it stands; whether the run wakes."""
    if wake is None:
        return False
    wake.keep()
    return True


def _sent(waking: bool) -> Outcome:
    note = "Sent: waking the run…" if waking else "Sent."
    return Outcome(delivery=Delivery.HANDED_OVER, note=note)
