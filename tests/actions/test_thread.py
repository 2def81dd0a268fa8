"""The AI's reply to an answer, as the doors read it: the thread's messages from where it stood
when the person answered, each described with its true place in the thread, until the run asks
again."""

from __future__ import annotations

from datetime import UTC, datetime

from thoughtforge.actions.thread import ThreadMessage, await_reply, reply_point
from thoughtforge.config import Config
from thoughtforge.core.creation import create_project
from thoughtforge.core.state import ChatMessage, append_chat
from thoughtforge.core.waiting import Waiting, record_wait
from thoughtforge.models import Phase
from thoughtforge.phases import add_human_message
from thoughtforge.phases.chat import notice


def _wait(key: str, chat_length: int) -> Waiting:
    return Waiting(
        key=key,
        kind="review_form",
        phase=Phase.BRAIN_DUMP,
        chat_length=chat_length,
        since=datetime.now(UTC),
    )


def test_the_reply_is_the_ai_s_and_the_system_s_messages_after_the_answer_each_at_its_index(
    config: Config,
) -> None:
    project = create_project(config, brain_dump="A wedding for 60 guests.")
    add_human_message(project, "Sixty guests, in June.")
    record_wait(project.dir, _wait("first", 2))
    point = reply_point(project)
    assert (point.since, point.answered_key) == (2, "first")  # the brain dump's, and the answer

    add_human_message(project, "And a band.")  # the person's own words are no reply
    append_chat(project.dir, ChatMessage(role="ai", content="Noted: June.", phase=Phase.BRAIN_DUMP))
    notice(project, "Distilling.")
    record_wait(project.dir, _wait("second", 5))  # the run asks again: the reply is complete

    replies: list[ThreadMessage] = []
    assert await_reply(project, point, 5.0, replies.append)
    assert [(m.index, m.role, m.content) for m in replies] == [
        (3, "ai", "Noted: June."),
        (4, "system", "Distilling."),
    ]
    assert replies[0].phase_label == "Phase 1 · brain dump"


def test_no_reply_within_the_time_given_is_said(config: Config) -> None:
    project = create_project(config, brain_dump="A wedding for 60 guests.")
    record_wait(project.dir, _wait("first", 0))
    replies: list[ThreadMessage] = []
    assert not await_reply(project, reply_point(project), 0.3, replies.append)
    assert replies == []
