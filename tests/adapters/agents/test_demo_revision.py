"""The demo agent's change requests: which figure a request replaces, and the spec proposal it
answers in a revision (the whole flow is `tests/flows/test_after_done.py`'s)."""

from __future__ import annotations

from pathlib import Path

import pytest

from thoughtforge.adapters.agents.demo_revision import Replacement, replacements, revised_proposal
from thoughtforge.phases.revision import STARTING_POINT
from thoughtforge.prompting import PromptLibrary

DOCUMENT = "budget is 15k all in, a hard limit. Around 60 guests. Within 1.5h of the city."


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ("The budget is 12k now, not 15k.", [Replacement(old="15k", new="12k")]),
        ("Make it 80 guests instead of 60.", [Replacement(old="60", new="80")]),
        ("Please go from 15k to 13k.", [Replacement(old="15k", new="13k")]),
        ("We expect 80 guests.", [Replacement(old="60", new="80")]),
        ("The budget is 9k.", [Replacement(old="15k", new="9k")]),
        ("Add a photographer.", []),
        ("Invite 40 cousins.", []),  # no figure beside "cousins" to replace
    ],
)
def test_a_request_replaces_the_figure_it_names_or_the_one_beside_its_word(
    change: str, expected: list[Replacement]
) -> None:
    assert replacements(change, DOCUMENT) == expected


def test_a_revision_proposal_is_the_current_spec_with_the_request_applied_and_quoted(
    tmp_path: Path,
) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "constraints.md").write_text(
        "# Constraints\n\n## Context\nx\n\n## Acceptance Criteria\n- Spend stays within 15k.\n"
    )
    start = STARTING_POINT.format(before=1, number=2)
    spec = "## Key Decisions\n- Keep to “budget is 15k all in”\n\n## Dependencies\n- None"
    conversation = f"AI:\n{start}\n\n{spec}\n\nHuman:\nThe budget is 12k now, not 15k."
    prompt = PromptLibrary().render(
        "spec-building", intent="x", conversation=conversation, structure_guidance="x"
    )
    assert revised_proposal(prompt, tmp_path) == (
        "## Key Decisions\n- Keep to “budget is 12k all in”\n"
        "- Changed at the person's request: “The budget is 12k now, not 15k.”\n\n"
        "## Dependencies\n- None\n\n## Acceptance Criteria\n- Spend stays within 12k.\n"
    )


def test_a_first_spec_prompt_is_no_revision(tmp_path: Path) -> None:
    prompt = PromptLibrary().render(
        "spec-building", intent="x", conversation="(none yet)", structure_guidance="x"
    )
    assert revised_proposal(prompt, tmp_path) is None
