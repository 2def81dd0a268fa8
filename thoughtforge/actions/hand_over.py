"""The person's answer handed to the run that waits for it: the words stored in the project first,
so no Prefect problem can lose them, then the input given to the run through Prefect's REST API.
A run that is busy (working, or re-entering after the last answer) is given `busy_seconds` to
reach its next wait. When no run waits, the door decides what happens next: the CLI runs the
pipeline in its own process, the page and the MCP server start a run (`actions.starting`).
Another answer reaching the run first is `AnsweredMeanwhile` (named here for the doors that
catch it).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum

from thoughtforge.catalogue import ACTIONS, RunAnswer
from thoughtforge.config import Config
from thoughtforge.core.project import Project
from thoughtforge.core.project_view import ProjectView, read_view
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.models import Phase
from thoughtforge.phases.chat import add_human_message, when_read
from thoughtforge.stack.api import AnsweredMeanwhile as AnsweredMeanwhile
from thoughtforge.stack.api import (
    PrefectApi,
    PrefectApiError,
    WaitingRun,
    api_for_wait,
)


class Delivery(StrEnum):
    HANDED_OVER = "handed_over"
    """The waiting run has the input."""
    QUEUED = "queued"
    """A message only: stored in the chat, where the AI's next call reads it."""
    NO_RUN = "no_run"
    """Nothing was waiting: the caller must start a run (a message was stored all the same)."""
    NOT_TAKEN = "not_taken"
    """The project is done or halted: it takes no chat turn (a message was stored all the same;
    a halted run's form would refuse it)."""
    KEPT = "kept"
    """Another answer (the page's, the CLI's) reached the waiting run a moment before: the run
    goes on with that one, and a message stored here is read at the AI's next call."""


def answer_in_chat(
    config: Config,
    project: Project,
    action: str,
    message: str = "",
    *,
    busy_seconds: float,
    on_busy: Callable[[], None] = lambda: None,
    view: ProjectView | None = None,
) -> Delivery:
    """A Phase 1–2 turn (`send`, `distill`, `realign`, `confirm`), its message stored first;
    `view`, the project's view the turn was checked against, when the caller has read it."""
    said = bool(message.strip())
    if action == "send" or said:
        add_human_message(project, message)
    if (view.status if view else project.status()).phase in (Phase.DONE, Phase.HALTED):
        return Delivery.NOT_TAKEN
    run_input = RunAnswer(action=ACTIONS[action].name, message="")
    try:
        handed = hand_over(
            config,
            project,
            run_input,
            saved=said,
            busy_seconds=busy_seconds,
            on_busy=on_busy,
            view=view,
        )
    except AnsweredMeanwhile:
        return Delivery.KEPT
    if handed:
        return Delivery.HANDED_OVER
    return Delivery.QUEUED if action == "send" else Delivery.NO_RUN


def kept_note(project: Project, message: str) -> str:
    """What the sender of an answer that another one beat to the run is told."""
    if message.strip():
        return (
            "Kept: another answer reached the run a moment before yours; your words are in the "
            f"chat, and {when_read_now(project)}."
        )
    return "Another answer reached the run a moment before yours: it goes on with that one."


def when_read_now(project: Project) -> str:
    """When the AI reads a message stored now that no run waits for (`phases.chat.when_read`)."""
    return when_read(project.status())


def hand_over(
    config: Config,
    project: Project,
    run_input: RunAnswer,
    *,
    saved: bool,
    busy_seconds: float,
    on_busy: Callable[[], None] = lambda: None,
    view: ProjectView | None = None,
) -> bool:
    """Resume the project's waiting run with `run_input`; False when no run waits.

    A plain message never waits for a busy run: it is in the chat already, and the run reads it
    there. Any other input waits up to `busy_seconds` for the run to ask for it.
    `AnsweredMeanwhile` when another answer reached the run first; a message in `run_input` is
    then stored in the chat, so its words are kept all the same. `view`: the project's view
    the caller has read for this request, its wait and its lock taken from it.
    """
    view = view or read_view(project)
    try:
        if _resumed_as_recorded(view, run_input):
            return True
    except AnsweredMeanwhile:
        _keep_words(project, run_input, saved=saved)
        raise
    url = api_for_wait(config, view.waiting)
    if url is None:
        return False
    try:
        api = PrefectApi(url)
        run = api.live_waiting_run(project)
        if run is None and run_input.action != "send" and _on_its_way(api, view):
            on_busy()
            run = api.next_waiting_run(project, busy_seconds)
        if run is None:
            return False
        api.resume(run, run_input)
    except AnsweredMeanwhile:
        _keep_words(project, run_input, saved=saved)
        raise
    except PrefectApiError as exc:
        kept = "Your message is saved in the project's chat. " if saved else ""
        raise ThoughtForgeError(
            f"{kept}The Prefect API at {url} failed while handing over the input "
            f"({exc}). Start a run with `thoughtforge continue {project.id}`."
        ) from None
    return True


def _resumed_as_recorded(view: ProjectView, run_input: RunAnswer) -> bool:
    """The answer given, in one request, to the run that recorded the wait, at the server it
    recorded, when that run holds the project in its process (a run that suspended, or whose
    process died, is looked up). False when there is no such run, or the try did not reach it:
    no server there, the run's form not saved yet, or the run not paused yet (a wait is
    recorded a moment before the run pauses); the caller looks the run up instead.
    `AnsweredMeanwhile` when the pause has its answer already."""
    waiting = view.waiting
    if waiting is None or not (waiting.flow_run_id and waiting.api_url):
        return False
    if not view.locked or waiting.away:
        return False
    api = PrefectApi(waiting.api_url)
    run = WaitingRun(
        id=waiting.flow_run_id,
        name=waiting.flow_run_id,
        state_name="Paused",
        schema_key=None,  # Prefect checks the input against the form, and says if none is saved
    )
    try:
        api.resume(run, run_input)
    except AnsweredMeanwhile:  # or not paused yet: only the answer kept for the pause tells
        try:
            answered = api.answered(run.id, waiting.key)
        except PrefectApiError:
            return False
        if answered:
            raise
        return False
    except PrefectApiError:
        return False
    return True


def _keep_words(project: Project, run_input: RunAnswer, *, saved: bool) -> None:
    """Another answer reached the run first: words not stored yet are stored in the chat."""
    if not saved and run_input.message and run_input.message.strip():
        add_human_message(project, run_input.message)


def _on_its_way(api: PrefectApi, view: ProjectView) -> bool:
    """A run may be between two waits: it holds the project's lock (the files' word, which
    stands while the server is slow to say so, as right after the run has shown its reply and
    before it records its next wait), or Prefect has it scheduled, starting or running — running
    before it takes the lock, too, as a resumed run is while it imports its flow (one killed
    since is given up once it settles)."""
    return view.locked or api.active_run(view.project) is not None
