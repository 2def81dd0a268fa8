"""The page's notes, told to an agent: the tool to call instead of the button to press."""

from __future__ import annotations

from datetime import UTC, datetime

from thoughtforge.actions.composer import WAITS_FOR, composer_for
from thoughtforge.actions.inbox import FULL_HOUSE
from thoughtforge.core.state import Status
from thoughtforge.mcp_server.agent_words import for_agent
from thoughtforge.models import Phase


def test_a_done_project_s_note_names_the_revise_tool() -> None:
    now = datetime.now(UTC)
    status = Status(phase=Phase.DONE, agent="demo", created_at=now, updated_at=now)
    note = composer_for(status, None, run_busy=False).note
    assert "press Revise" in note  # the page's words ...
    told = for_agent(note)
    assert "call revise" in told and "press" not in told  # ... and the agent's


def test_every_wait_and_the_full_house_name_tools() -> None:
    assert for_agent(WAITS_FOR["IntakeTurn"]) == "more detail, or distill"
    assert for_agent(WAITS_FOR["ReviewTurn"]) == "corrections or confirm"
    told = for_agent(FULL_HOUSE)
    assert "call decide (terminate) or archive_project" in told and "press" not in told
