"""The AI's reply to an answer, as a door waits for it after handing the answer over: the
messages that follow it in the thread from where the thread stood (`reply_point`) until the run
asks again (what the CLI's `--wait` prints and an MCP tool returns), and the question a run
started for an answer asks first."""

from __future__ import annotations

import time
from collections.abc import Callable

from pydantic import BaseModel

from thoughtforge.actions.thread import ThreadMessage, thread_message
from thoughtforge.core.project import Project
from thoughtforge.core.state import read_thread
from thoughtforge.core.waiting import current_wait
from thoughtforge.models import Phase
from thoughtforge.phases import chat
from thoughtforge.phases.chat import REPLY_POLL_SECONDS


class ReplyPoint(BaseModel):
    """Where the thread stands as the person answers: the reply is what comes after it."""

    since: int
    """The thread's length before the answer."""
    answered_key: str | None
    """The key of the wait the answer is for: the reply ends when the run asks anything else."""


def reply_point(project: Project) -> ReplyPoint:
    """The thread's length and the run's wait now, read before the answer is given."""
    since = len(read_thread(project.dir))
    waiting = current_wait(project.dir)
    return ReplyPoint(since=since, answered_key=waiting.key if waiting else None)


def await_reply(
    project: Project,
    point: ReplyPoint,
    seconds: float,
    on_reply: Callable[[ThreadMessage], None],
) -> bool:
    """Each AI and system message after `point`, as the thread shows it, handed to `on_reply` as
    it comes, until the run asks the person again or the project is done or halted: True then;
    False when `seconds` pass first (`phases.chat.await_reply`)."""
    return chat.await_reply(
        project,
        point.since,
        point.answered_key,
        seconds,
        lambda index, message: on_reply(thread_message(index, message)),
    )


def next_question(project: Project, answered_key: str | None, seconds: float) -> str | None:
    """The key of the question a newly started run asks (any wait but `answered_key`, which a
    run that died left), or None when it asks nothing within `seconds`, or ends first."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        waiting = current_wait(project.dir)
        if waiting is not None and waiting.key != answered_key:
            return waiting.key
        if project.status().phase in (Phase.DONE, Phase.HALTED):
            return None
        time.sleep(REPLY_POLL_SECONDS)
    return None
