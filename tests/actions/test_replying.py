"""The AI's reply as a door awaits it: each message after the answer, numbered by its place in
the thread, until the run asks again or the project stops; and the question a run started for
an answer asks first."""

from __future__ import annotations

from datetime import UTC, datetime

from tests.conftest import BRAIN_DUMP
from thoughtforge.actions.replying import ReplyPoint, await_reply, next_question, reply_point
from thoughtforge.actions.thread import ThreadMessage, project_thread
from thoughtforge.config import Config
from thoughtforge.core.creation import create_project
from thoughtforge.core.state import ChatMessage, append_chat, utc_now
from thoughtforge.core.transition import transition
from thoughtforge.core.waiting import Waiting, record_wait
from thoughtforge.models import HaltReason, Phase
from thoughtforge.phases import add_human_message
from thoughtforge.phases.chat import notice


def test_a_reply_is_handed_on_with_each_message_s_place_in_the_thread(config: Config) -> None:
    """Before, MCP numbered every message of a reply as the first one (`since`)."""
    project = create_project(config, brain_dump=BRAIN_DUMP)
    transition(project, Phase.DISTILLING)
    since = len(project_thread(project))
    for role, text in (("ai", "The distillation."), ("human", "Queued."), ("system", "Halted.")):
        append_chat(project.dir, ChatMessage(role=role, content=text, phase=Phase.DISTILLING))
    transition(project, Phase.HALTED, halt_reason=HaltReason.AGENT_FAILURE)
    replies: list[ThreadMessage] = []

    assert await_reply(project, ReplyPoint(since=since, answered_key=None), 5.0, replies.append)

    assert [(m.index, m.role, m.content) for m in replies] == [
        (since, "ai", "The distillation."),
        (since + 2, "system", "Halted."),
    ]


def test_the_question_a_started_run_asks_is_any_but_the_one_answered(config: Config) -> None:
    project = create_project(config, brain_dump=BRAIN_DUMP)
    transition(project, Phase.DISTILLING)
    transition(project, Phase.HUMAN_REVIEW)

    def ask(key: str) -> None:
        wait = Waiting(
            key=key, kind="ReviewTurn", phase=Phase.HUMAN_REVIEW, chat_length=1, since=utc_now()
        )
        record_wait(project.dir, wait)

    ask("answered")
    assert next_question(project, "answered", 0.3) is None  # the dead run's wait, not a new one
    ask("review-2")
    assert next_question(project, "answered", 5.0) == "review-2"
    transition(project, Phase.HALTED, halt_reason=HaltReason.AGENT_FAILURE)
    assert next_question(project, "review-2", 5.0) is None  # it stopped instead of asking


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
