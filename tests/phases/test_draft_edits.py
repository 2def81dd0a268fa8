"""The person's edit of the AI's draft: checked as the agent's draft is, saved as the newest
draft (marked edited), locked by Confirm, refused with a reason and nothing stored otherwise."""

from __future__ import annotations

import pytest

from tests.conftest import BRAIN_DUMP
from tests.phases.conftest import distillation, under_review
from tests.phases.test_spec import INTENT, proposal, say_ai, spec_building_project
from thoughtforge.config import Config
from thoughtforge.core.creation import create_project
from thoughtforge.core.project import INTENT_FILE, Project
from thoughtforge.core.state import ChatMessage, append_chat, read_chat, read_status
from thoughtforge.core.transition import transition
from thoughtforge.errors import DraftRefused
from thoughtforge.models import Phase
from thoughtforge.phases import confirm_intent, confirm_spec
from thoughtforge.phases.draft_edits import (
    current_draft,
    is_draft,
    keep_refused_edit,
    save_edit,
)
from thoughtforge.prompting.conversation import turn_text

EDITED_OBJECTIVE = "Plan a small countryside wedding for 80 guests in May."


@pytest.fixture
def reviewed(config: Config) -> Project:
    return under_review(config)


def _edit(project: Project, text: str, *, confirming: bool = False) -> None:
    save_edit(project, text, current_draft(project).version, confirming=confirming)


def test_an_edited_distillation_is_the_draft_confirm_locks(
    reviewed: Project, config: Config
) -> None:
    _edit(reviewed, distillation(objective=EDITED_OBJECTIVE), confirming=True)

    last = read_chat(reviewed.dir)[-1]
    assert last.role == "ai" and last.edited and last.phase is Phase.HUMAN_REVIEW
    assert is_draft(last) and current_draft(reviewed).text == last.content
    assert "AI (this draft as the human edited it):" in turn_text(last)
    confirmed = confirm_intent(reviewed, config)
    intent = (reviewed.dir / INTENT_FILE).read_text()
    assert EDITED_OBJECTIVE in intent and "60 guests" not in intent
    assert confirmed.project_name.startswith("Plan a small countryside wedding for 80 guests")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("   \n", "empty"),
        (distillation().replace("## Objective", "## Goal"), "## Objective"),
        (distillation(questions=6), "6 open questions"),
    ],
)
def test_a_bad_edit_is_refused_with_its_reason_and_nothing_is_stored(
    reviewed: Project, text: str, why: str
) -> None:
    before = read_chat(reviewed.dir)
    with pytest.raises(DraftRefused, match=why):
        _edit(reviewed, text)
    assert read_chat(reviewed.dir) == before


def test_an_edit_of_a_draft_the_ai_has_replaced_is_refused(reviewed: Project) -> None:
    version = current_draft(reviewed).version
    append_chat(
        reviewed.dir,
        ChatMessage(role="ai", content=distillation(objective="Newer."), phase=Phase.DISTILLING),
    )
    with pytest.raises(DraftRefused, match="changed since you opened it"):
        save_edit(reviewed, distillation(objective=EDITED_OBJECTIVE), version, confirming=False)


def test_only_a_draft_waiting_for_confirm_can_be_edited(config: Config) -> None:
    project = create_project(config, brain_dump=BRAIN_DUMP)
    with pytest.raises(DraftRefused, match="only a distillation under review"):
        current_draft(project)
    transition(project, Phase.DISTILLING)
    transition(project, Phase.HUMAN_REVIEW)
    with pytest.raises(DraftRefused, match="no draft to edit yet"):
        current_draft(project)


def test_a_refused_edit_is_kept_for_the_person(reviewed: Project) -> None:
    kept = keep_refused_edit(reviewed, "my long edit\n")
    assert kept.startswith("rejected/") and (reviewed.dir / kept).read_text() == "my long edit\n"


def test_an_edited_proposal_is_checked_as_the_agents_and_confirm_locks_it(config: Config) -> None:
    project = spec_building_project(config)
    say_ai(project, proposal())
    draft = current_draft(project)
    assert draft.kind == "spec proposal"

    lost = proposal().replace("## Key Decisions\n- Buffet, because it suits a vegetarian menu.", "")
    with pytest.raises(DraftRefused, match="lost the draft's ## Key Decisions"):
        _edit(project, lost)
    no_criteria = proposal().split("## Acceptance Criteria")[0]
    with pytest.raises(DraftRefused, match="Acceptance Criteria"):
        _edit(project, no_criteria)
    open_item = proposal(resolved="- Exact date in June: the 14th.")
    with pytest.raises(DraftRefused, match="Is the budget per person"):
        _edit(project, open_item, confirming=True)
    _edit(project, open_item)  # Save alone keeps it: the open item can be answered later

    edited = proposal().replace("Barn and terrace.", "Barn, terrace and an orchard.")
    _edit(project, edited, confirming=True)
    assert confirm_spec(project, config).accepted
    assert "an orchard" in (project.dir / "docs" / "spec.md").read_text()
    assert read_status(project.dir).phase is Phase.BUILDING
    assert INTENT.splitlines()[0] in (project.dir / INTENT_FILE).read_text()
