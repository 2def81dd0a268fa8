from __future__ import annotations

import re

from thoughtforge.config import Config
from thoughtforge.core import create_project, transition
from thoughtforge.flows.human_input import chat_key, halt_key
from thoughtforge.models import HaltReason, Phase
from thoughtforge.phases.intake import add_human_message

PREFECT_KEY = re.compile(r"^[a-z0-9-]+$")


def test_wait_keys_are_valid_prefect_keys_and_change_with_the_files(config: Config) -> None:
    project = create_project(config, brain_dump="x")
    transition(project, Phase.DISTILLING)
    transition(project, Phase.HUMAN_REVIEW)
    first = chat_key(project)
    assert PREFECT_KEY.match(first), first
    add_human_message(project, "a correction")
    assert chat_key(project) != first
    transition(project, Phase.HALTED, halt_reason=HaltReason.AGENT_FAILURE)
    assert PREFECT_KEY.match(halt_key(project)), halt_key(project)
