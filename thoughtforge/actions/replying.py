"""The AI's reply to an answer, as a door waits for it after handing the answer over: the
messages that follow it in the thread until the run asks again (what the CLI's `--wait` prints
and an MCP tool returns), and the question a run started for an answer asks first."""

from __future__ import annotations

import time
from collections.abc import Callable

from thoughtforge.actions.thread import ThreadMessage, thread_message
from thoughtforge.core.project import Project
from thoughtforge.core.waiting import current_wait
from thoughtforge.models import Phase
from thoughtforge.phases.chat import REPLY_POLL_SECONDS, await_numbered_reply


def await_reply(
    project: Project,
    since: int,
    answered_key: str | None,
    seconds: float,
    on_reply: Callable[[ThreadMessage], None],
) -> bool:
    """Each AI and system message after thread message `since`, as the thread shows it, handed
    to `on_reply` as it comes, until the run asks the person again (a wait other than
    `answered_key`) or the project is done or halted: True then; False when `seconds` pass
    first (`phases.chat.await_reply`)."""
    return await_numbered_reply(
        project,
        since,
        answered_key,
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
