"""The person's answer from the page, taken the way the CLI takes it (`server.replies`): the words
stored in the project first, then handed to the waiting run through Prefect's REST API.

Only an action the composer offers now is accepted (`actions.composer_for`), so the page cannot
send what the run would refuse. When no run waits, the page does what the CLI does, except that
the run it needs is started on the deployment (`launch.start_run`) instead of in this process.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from thoughtforge.config import Config
from thoughtforge.core import Project, current_wait, is_running
from thoughtforge.core.run_start import RunAlreadyStarting, Starting, claim_start, clear_start
from thoughtforge.core.run_start import starting as standing_claim
from thoughtforge.core.spend_summary import change_budget, spend_of
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.models import HaltReason, Phase, Usd
from thoughtforge.phases import add_human_message, halt_actions
from thoughtforge.phases.chat import when_answered, when_read
from thoughtforge.phases.draft_edits import save_edit
from thoughtforge.phases.revision import refuse_while_a_run_works, start_revision
from thoughtforge.server.api import AnsweredMeanwhile, PrefectApi, PrefectApiError, find_api
from thoughtforge.server.replies import Delivery, hand_over, kept_note, reply_to_chat
from thoughtforge.web.actions import (
    ACTIONS,
    AGENT_SWITCH_ACTIONS,
    CHAT_ACTIONS,
    Composer,
    composer_for,
)
from thoughtforge.web.launch import Started, start_run

BUSY_SECONDS = 20.0
"""How long an action waits for a run that is about to ask (re-entering after the last answer)."""
ENDED_STATES = frozenset({"COMPLETED", "FAILED", "CRASHED", "CANCELLED", "CANCELLING"})
"""A claimed run in one of these states will never take the project's lock."""


Starter = Callable[[Config, Path, Project, dict[str, Any] | None], Started]
"""How a run is started when the answer needs one: the page starts the deployment's
(`launch.start_run`); the MCP server, with no deployment to run on, starts the CLI's."""


class Answer(BaseModel):
    action: str
    message: str = ""
    agent: str | None = None
    """With a halt's or a stuck build's decision: the agent to go on with (`switch_agent`)."""
    budget_usd: Usd | None = None
    """With a decision on a `budget_exhausted` halt: the project's new budget in dollars."""


class Outcome(BaseModel):
    """What happened, in a line the page shows under the composer."""

    delivery: str
    note: str


class DraftEdit(BaseModel):
    """The person's edit of the AI's draft: the text, the version of the draft it was made
    from, and whether Confirm follows ("Save and confirm") or not ("Save")."""

    text: str
    version: str
    confirm: bool = False


class ActionRefused(ThoughtForgeError):
    """Not an action of the current wait, or one that needs a message sent without one."""


def current_composer(config: Config, project: Project) -> Composer:
    """The composer for the project as its files and its runs are now."""
    claim = run_on_its_way(config, project)
    return composer_for(
        project.status(), current_wait(project.dir), run_busy(config, project), claim
    )


def run_on_its_way(config: Config, project: Project) -> Starting | None:
    """The standing claim of a run asked for (`core.run_start`), unless Prefect says that run
    already ended (it failed before taking the lock): then the claim is dropped."""
    claim = standing_claim(project)
    if claim is None or claim.flow_run_id is None:
        return claim
    url = find_api(config)
    if url is None:
        return claim
    try:
        state = PrefectApi(url).state_of(claim.flow_run_id)
    except PrefectApiError:
        return claim
    if state in ENDED_STATES and standing_claim(project) == claim:
        clear_start(project)
        return None
    return claim


def run_busy(config: Config, project: Project) -> bool:
    """A run holds the project's lock, or Prefect has one scheduled, starting or re-entering."""
    if is_running(project):
        return True
    url = find_api(config)
    if url is None:
        return False
    try:
        return PrefectApi(url).busy_run(project) is not None
    except PrefectApiError:
        return False


def take_answer(
    config: Config,
    config_file: Path,
    project: Project,
    answer: Answer,
    start: Starter = start_run,
) -> Outcome:
    composer = current_composer(config, project)
    if not composer.allows(answer.action):
        raise ActionRefused(f"'{answer.action}' is not possible now. {composer.note}")
    if ACTIONS[answer.action].needs_message and not answer.message.strip():
        raise ActionRefused("Write a message first: this action sends it.")
    if answer.action == "start":
        started = start(config, config_file, project, None)
        return Outcome(delivery="started" if started.run_id else "not_started", note=started.note)
    if answer.action == "revise":
        return _revise(config, config_file, project, answer, start)
    if answer.action in CHAT_ACTIONS:
        return _chat(config, config_file, project, answer, start)
    if answer.agent and answer.agent != project.status().agent:
        if answer.action not in AGENT_SWITCH_ACTIONS:
            raise ActionRefused(f"'{answer.action}' calls no agent: there is none to switch.")
        halt_actions.switch_agent(project, config, answer.agent)  # as `thoughtforge agent` does
    if answer.budget_usd is not None:
        _raise_budget(config, project, answer)
    return _decide(config, config_file, project, answer, start)


def _raise_budget(config: Config, project: Project, answer: Answer) -> None:
    """A budget_exhausted halt's form carries the new budget: set before the decision, as
    `thoughtforge budget ID --usd N` does; the token limit stays as it was."""
    if project.status().halt_reason is not HaltReason.BUDGET_EXHAUSTED:
        raise ActionRefused("the budget is raised on a budget_exhausted halt only")
    if answer.action == "terminate":
        return
    kept_tokens = spend_of(config, project).budget.max_tokens
    change_budget(config, project, answer.budget_usd, kept_tokens)


def _revise(
    config: Config, config_file: Path, project: Project, answer: Answer, start: Starter
) -> Outcome:
    """A change request, as `thoughtforge revise` makes it; then a run takes it to Phase 2."""
    refuse_while_a_run_works(project, "revise")
    revision = start_revision(project, config, answer.message)
    started = start(config, config_file, project, None)
    return Outcome(
        delivery="started" if started.run_id else "applied",
        note=f"Revision {revision.number} started: back to Phase 2. {started.note}",
    )


def take_edit(
    config: Config,
    config_file: Path,
    project: Project,
    edit: DraftEdit,
    start: Starter = start_run,
) -> Outcome:
    """Save the edited draft (`phases.draft_edits`); with `confirm`, then Confirm it exactly as
    the Confirm button does, so a waiting run (a resting one woken), a run to start, and another
    answer arriving first are all met as they are there. Refused while the AI works on the
    draft (it is about to write a newer one): the page keeps the text in its box."""
    composer = current_composer(config, project)
    if not (composer.allows("confirm") or composer.allows("start")):
        raise ActionRefused(f"The draft cannot be edited now. {composer.note}")
    save_edit(project, edit.text, edit.version, confirming=edit.confirm)
    if not edit.confirm:
        return Outcome(delivery="saved", note="Saved: your edit is the draft now.")
    outcome = _chat(config, config_file, project, Answer(action="confirm"), start)
    return outcome.model_copy(update={"note": f"Saved your edit. {outcome.note}"})


def _claim_wake(project: Project) -> bool:
    """Before an answer goes to a run that suspended (no process left): it restarts to take the
    answer, which takes a while, so the page says it is waking until the run holds its lock."""
    waiting = current_wait(project.dir)
    if waiting is None or not waiting.away or is_running(project):
        return False
    try:
        claim_start(project, "wake")
    except RunAlreadyStarting:
        return False
    return True


def _sent(project: Project, handed_over: bool, waking: bool) -> Outcome | None:
    """The outcome of a hand-over; None when it was not taken (a wake claimed for it is
    dropped)."""
    if not handed_over:
        if waking:
            clear_start(project)
        return None
    return Outcome(
        delivery=Delivery.HANDED_OVER, note="Sent: waking the run…" if waking else "Sent."
    )


def _chat(
    config: Config, config_file: Path, project: Project, answer: Answer, start: Starter
) -> Outcome:
    waking = _claim_wake(project)
    delivery = reply_to_chat(
        config, project, answer.action, answer.message, busy_seconds=BUSY_SECONDS
    )
    sent = _sent(project, delivery is Delivery.HANDED_OVER, waking)
    if sent is not None:
        return sent
    if delivery is Delivery.QUEUED:
        working = is_running(project) or standing_claim(project) is not None
        when = when_answered if working else when_read
        return Outcome(delivery=delivery, note=f"Kept: {when(project.status())}.")
    if delivery is Delivery.KEPT:
        return Outcome(delivery=delivery, note=kept_note(project, answer.message))
    if delivery is Delivery.NOT_TAKEN:
        phase = project.status().phase
        return Outcome(delivery=delivery, note=f"Kept, but the project is {phase}.")
    started = start(config, config_file, project, {"message": "", "action": answer.action})
    return Outcome(delivery="started" if started.run_id else delivery, note=started.note)


def _decide(
    config: Config, config_file: Path, project: Project, answer: Answer, start: Starter
) -> Outcome:
    message = answer.message.strip()
    run_input = {"action": answer.action}
    if answer.action == "provide_input":
        run_input["message"] = answer.message
    elif message:
        add_human_message(project, answer.message)  # said beside a decision: kept all the same
    waking = _claim_wake(project)
    try:
        handed = hand_over(
            config, project, run_input, saved=bool(message), busy_seconds=BUSY_SECONDS
        )
    except AnsweredMeanwhile:
        if waking:
            clear_start(project)
        return Outcome(delivery=Delivery.KEPT, note=kept_note(project, answer.message))
    sent = _sent(project, handed, waking)
    if sent is not None:
        return sent
    if answer.action == "provide_input":
        status = halt_actions.provide_input(project, answer.message)
    else:
        status = halt_actions.apply(project, answer.action)  # type: ignore[arg-type]  # allowed above
    if status.phase in (Phase.DONE, Phase.HALTED):
        return Outcome(delivery="applied", note=f"Done: the project is {status.phase}.")
    started = start(config, config_file, project, None)
    return Outcome(delivery="applied", note=f"The project goes on ({status.phase}). {started.note}")
