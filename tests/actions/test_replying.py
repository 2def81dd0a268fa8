"""The AI's reply as a door awaits it: each message after the answer, numbered by its place in
the thread, until the run asks again or the project stops; and the question a run started for
an answer asks first."""

from __future__ import annotations

from tests.conftest import BRAIN_DUMP
from thoughtforge.actions.replying import await_reply, next_question
from thoughtforge.actions.thread import ThreadMessage, project_thread
from thoughtforge.config import Config
from thoughtforge.core.creation import create_project
from thoughtforge.core.state import ChatMessage, append_chat, utc_now
from thoughtforge.core.transition import transition
from thoughtforge.core.waiting import Waiting, record_wait
from thoughtforge.models import HaltReason, Phase


def test_a_reply_is_handed_on_with_each_message_s_place_in_the_thread(config: Config) -> None:
    """Before, MCP numbered every message of a reply as the first one (`since`)."""
    project = create_project(config, brain_dump=BRAIN_DUMP)
    transition(project, Phase.DISTILLING)
    since = len(project_thread(project))
    for role, text in (("ai", "The distillation."), ("human", "Queued."), ("system", "Halted.")):
        append_chat(project.dir, ChatMessage(role=role, content=text, phase=Phase.DISTILLING))
    transition(project, Phase.HALTED, halt_reason=HaltReason.AGENT_FAILURE)
    replies: list[ThreadMessage] = []

    assert await_reply(project, since, None, 5.0, replies.append)

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
