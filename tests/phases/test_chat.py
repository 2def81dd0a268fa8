"""The chat as the phases use it: the human's words land in the phase they belong to."""

from __future__ import annotations

import pytest

from tests.conftest import BRAIN_DUMP
from tests.phases.conftest import Script, distillation, prompts
from thoughtforge.config import Config
from thoughtforge.core.creation import create_project
from thoughtforge.core.state import read_chat
from thoughtforge.core.transition import transition
from thoughtforge.errors import ThoughtForgeError, TransitionError
from thoughtforge.models import HaltReason, Phase
from thoughtforge.phases import add_human_message, intake, latest_ai_message, notice_once


def test_a_message_sent_while_halted_belongs_to_the_halted_phase(
    config: Config, script: Script
) -> None:
    script(distillation())
    project = create_project(config, brain_dump=BRAIN_DUMP)
    transition(project, Phase.DISTILLING)
    transition(project, Phase.HALTED, halt_reason=HaltReason.AGENT_FAILURE)

    add_human_message(project, "The venue is booked for June 14.")

    assert read_chat(project.dir)[-1].phase is Phase.DISTILLING
    transition(project, Phase.DISTILLING)
    intake.distill(project, config)
    assert "Human:\nThe venue is booked for June 14." in prompts(project)[-1]


def test_a_repeated_notice_is_said_once_and_is_the_latest_word(config: Config) -> None:
    project = create_project(config, brain_dump=BRAIN_DUMP)

    notice_once(project, "File 'a.bin' could not be read.")
    notice_once(project, "File 'a.bin' could not be read.")

    system = [m.content for m in read_chat(project.dir) if m.role == "system"]
    assert system == ["File 'a.bin' could not be read."]
    assert latest_ai_message(project) == "File 'a.bin' could not be read."


def test_an_empty_message_or_one_to_a_finished_project_is_refused(config: Config) -> None:
    project = create_project(config, brain_dump=BRAIN_DUMP)
    with pytest.raises(ThoughtForgeError, match="empty"):
        add_human_message(project, "   ")
    transition(project, Phase.HALTED, halt_reason=HaltReason.HUMAN_TERMINATED)
    with pytest.raises(TransitionError, match="terminated"):
        add_human_message(project, "Are you there?")
    assert [m.content for m in read_chat(project.dir)] == [BRAIN_DUMP]
