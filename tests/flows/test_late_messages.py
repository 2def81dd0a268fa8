"""A message sent while the AI works (Phases 1–2) is answered: each distillation and proposal
marks what it read, and the next turn takes what it did not read at once, without waiting."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from tests.conftest import BRAIN_DUMP
from tests.phases.conftest import distillation, prompts, step_script
from thoughtforge.config import Config
from thoughtforge.core.creation import create_project
from thoughtforge.core.project import Project
from thoughtforge.core.state import mark_read, read_chat, read_status, utc_now
from thoughtforge.core.transition import transition
from thoughtforge.core.waiting import Waiting, record_wait
from thoughtforge.flows.human_input import INTAKE, REVIEW, SPEC, ReviewTurn, SpecTurn
from thoughtforge.flows.intake import _apply
from thoughtforge.flows.turns import _sent_while_working, take_turn
from thoughtforge.models import Phase
from thoughtforge.phases import add_human_message, intake
from thoughtforge.phases.chat import sent_while_working

LATE = "Also: the barn has no heating, plan for a cold evening."


def _distilling_while_the_person_writes(project: Project, config: Config) -> None:
    """The distillation runs (its agent takes a second); the person writes meanwhile."""
    worker = threading.Thread(target=intake.distill, args=(project, config))
    worker.start()
    deadline = time.monotonic() + 30
    while not list((project.dir / ".scripted-agent" / "prompts").glob("*.md")):
        assert time.monotonic() < deadline, "the agent was never called"
        time.sleep(0.05)
    add_human_message(project, LATE)
    worker.join(60)


def test_a_message_sent_during_a_distillation_is_distilled_next_and_marked_read(
    config: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before, the review wait began and the message sat unanswered until the person acted."""
    step_script(tmp_path, monkeypatch, "brain-dump-intake")({"text": distillation(), "sleep": 1})
    project = create_project(config, brain_dump=BRAIN_DUMP)
    _distilling_while_the_person_writes(project, config)
    assert read_status(project.dir).phase is Phase.HUMAN_REVIEW
    assert LATE not in prompts(project)[0]  # the step in flight could not read it
    by = {m.content: m.read_by for m in read_chat(project.dir) if m.role == "human"}
    assert by == {BRAIN_DUMP: "distillation 1", LATE: None}

    turn = take_turn(project, REVIEW)  # returns at once: no wait, no Prefect
    assert turn == ReviewTurn(action="send")
    _apply(project, config, Phase.HUMAN_REVIEW, turn)

    assert LATE in prompts(project)[-1]
    by = {m.content: m.read_by for m in read_chat(project.dir) if m.role == "human"}
    assert by == {BRAIN_DUMP: "distillation 1", LATE: "distillation 2"}
    assert sent_while_working(read_chat(project.dir)) == []  # the next turn waits


def test_a_late_message_waits_for_the_answer_a_recorded_wait_expects(config: Config) -> None:
    """A re-entered run comes back for its wait's answer (maybe Confirm): it is not replaced."""
    project = create_project(config, brain_dump=BRAIN_DUMP)
    chat = read_chat(project.dir)
    mark_read(project.dir, chat, "distillation 1")
    add_human_message(project, LATE)
    assert [m.content for m in sent_while_working(read_chat(project.dir))] == [LATE]
    record_wait(
        project.dir,
        Waiting(
            key="k", kind="ReviewTurn", phase=Phase.HUMAN_REVIEW, chat_length=1, since=utc_now()
        ),
    )
    assert _sent_while_working(project, REVIEW) == []
    assert _sent_while_working(project, INTAKE) == []  # the brain dump's turns collect words


def test_a_thread_from_before_read_marks_is_left_as_it_was(config: Config) -> None:
    project = create_project(config, brain_dump=BRAIN_DUMP)
    add_human_message(project, LATE)
    assert sent_while_working(read_chat(project.dir)) == []


def test_a_phase_one_message_the_spec_cannot_read_is_named_with_what_to_do(
    config: Config,
) -> None:
    project = create_project(config, brain_dump=BRAIN_DUMP)
    mark_read(project.dir, read_chat(project.dir), "distillation 1")
    add_human_message(project, LATE)  # said in review, as Confirm was being taken
    transition(project, Phase.DISTILLING)
    transition(project, Phase.HUMAN_REVIEW)
    transition(project, Phase.SPEC_BUILDING, project_name="Wedding")
    assert _sent_while_working(project, SPEC) == []
    notices = [m.content for m in read_chat(project.dir) if m.role == "system"]
    assert any("Send it again here" in n and "barn has no heating" in n for n in notices)
    add_human_message(project, "Budget is firm.")  # sent while the proposal is written
    assert take_turn(project, SPEC) == SpecTurn(action="send")
