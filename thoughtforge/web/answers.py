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
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.models import Phase
from thoughtforge.phases import add_human_message, halt_actions
from thoughtforge.phases.chat import when_read
from thoughtforge.server.api import AnsweredMeanwhile, PrefectApi, PrefectApiError, find_api
from thoughtforge.server.replies import Delivery, hand_over, kept_note, reply_to_chat
from thoughtforge.web.actions import ACTIONS, CHAT_ACTIONS, Composer, composer_for
from thoughtforge.web.launch import Started, start_run

BUSY_SECONDS = 20.0
"""How long an action waits for a run that is about to ask (re-entering after the last answer)."""


Starter = Callable[[Config, Path, Project, dict[str, Any] | None], Started]
"""How a run is started when the answer needs one: the page starts the deployment's
(`launch.start_run`); the MCP server, with no deployment to run on, starts the CLI's."""


class Answer(BaseModel):
    action: str
    message: str = ""


class Outcome(BaseModel):
    """What happened, in a line the page shows under the composer."""

    delivery: str
    note: str


class ActionRefused(ThoughtForgeError):
    """Not an action of the current wait, or one that needs a message sent without one."""


def current_composer(config: Config, project: Project) -> Composer:
    """The composer for the project as its files and its runs are now."""
    return composer_for(project.status(), current_wait(project.dir), run_busy(config, project))


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
    if answer.action in CHAT_ACTIONS:
        return _chat(config, config_file, project, answer, start)
    return _decide(config, config_file, project, answer, start)


def _chat(
    config: Config, config_file: Path, project: Project, answer: Answer, start: Starter
) -> Outcome:
    delivery = reply_to_chat(
        config, project, answer.action, answer.message, busy_seconds=BUSY_SECONDS
    )
    if delivery is Delivery.HANDED_OVER:
        return Outcome(delivery=delivery, note="Sent.")
    if delivery is Delivery.QUEUED:
        return Outcome(delivery=delivery, note=f"Kept: {when_read(project.status())}.")
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
    try:
        handed = hand_over(
            config, project, run_input, saved=bool(message), busy_seconds=BUSY_SECONDS
        )
    except AnsweredMeanwhile:
        return Outcome(delivery=Delivery.KEPT, note=kept_note(project, answer.message))
    if handed:
        return Outcome(delivery=Delivery.HANDED_OVER, note="Sent.")
    if answer.action == "provide_input":
        status = halt_actions.provide_input(project, answer.message)
    else:
        status = halt_actions.apply(project, answer.action)  # type: ignore[arg-type]
    if status.phase in (Phase.DONE, Phase.HALTED):
        return Outcome(delivery="applied", note=f"Done: the project is {status.phase}.")
    started = start(config, config_file, project, None)
    return Outcome(delivery="applied", note=f"The project goes on ({status.phase}). {started.note}")
