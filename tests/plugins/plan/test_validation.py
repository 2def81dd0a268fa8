"""The plan's validator: the shared document check, then the template's shape and slots, at a
build, a fix and a revision alike; and the contract's hook that hands it to every phase."""

from __future__ import annotations

from pathlib import Path

from tests.build_setup import GENERIC, building_project, content
from thoughtforge.config import Config
from thoughtforge.phases.deliverable.verdict import Candidate
from thoughtforge.phases.plugin_loader import plugin_for
from thoughtforge.plugins.plan.validation import check_plan, template_of

FILLED = {slot: content(slot) for slot in GENERIC.slot_ids}
PLAN = GENERIC.render("Garden Shed", FILLED)
FIXED = PLAN.replace("order timber in week 1", "order larch timber in week 1", 1)


def fix(answer: str) -> Candidate:
    return Candidate(stage="fix", text=answer, previous=PLAN)


def test_a_fix_that_keeps_the_template_is_accepted() -> None:
    verdict = check_plan(fix(f"Here is the revised plan:\n\n{FIXED}"), GENERIC)
    assert verdict.accepted and verdict.document == FIXED.strip(), verdict.reason
    assert verdict.stripped == ["a preamble ('Here is the revised plan:')"]


def test_a_sentence_a_fix_adds_inside_a_section_is_accepted_as_the_fix_prompt_allows() -> None:
    """Before: refused as 'it has 28 non-blank lines where the template has 27', twice, and the
    run halted fix_output_invalid, though the prompt allowed it."""
    added = FIXED.replace("## Approach", "Budget note: timber is 400 euros.\n\n## Approach")
    verdict = check_plan(fix(added), GENERIC)
    assert verdict.accepted, verdict.reason
    assert "Budget note: timber is 400 euros." in verdict.document


def test_a_build_off_the_template_line_for_line_is_refused_as_no_longer_following_it() -> None:
    added = FIXED.replace("## Approach", "Budget note: timber is 400 euros.\n\n## Approach")
    verdict = check_plan(Candidate(stage="build", text=added), GENERIC)
    assert (verdict.accepted, verdict.problem) == (False, "not_following")
    assert "28 non-blank lines where the template has 27" in verdict.reason


def test_a_tbd_in_a_slot_is_refused_as_phase_3_refuses_it() -> None:
    verdict = check_plan(fix(PLAN.replace(FILLED["risks.assessment"], "TBD")), GENERIC)
    assert (verdict.accepted, verdict.problem) == (False, "unfilled")
    assert "placeholder text 'TBD'" in verdict.reason


def test_a_slot_that_points_at_another_or_holds_filler_is_refused_at_the_build() -> None:
    filler = dict(FILLED, **{"goals.plan": "see above", "risks.assessment": "Lorem ipsum"})
    verdict = check_plan(Candidate(stage="build", text=GENERIC.render("Shed", filler)), GENERIC)
    assert (verdict.accepted, verdict.problem) == (False, "unfilled")
    assert "a pointer to another cell ('see above')" in verdict.reason
    assert "placeholder text 'Lorem ipsum'" in verdict.reason


def test_a_build_is_held_to_the_template_with_the_slots_named() -> None:
    partial = GENERIC.render("Garden Shed", {k: v for k, v in FILLED.items() if k != "goals.plan"})
    verdict = check_plan(Candidate(stage="build", text=partial), GENERIC)
    assert (verdict.accepted, verdict.problem) == (False, "unfilled")
    assert verdict.reason == "section 'Goals & Scope' has unfilled slots goals.plan (empty)"


def test_a_plan_the_person_reshaped_is_held_to_the_shared_check_only() -> None:
    reshaped = PLAN + "\n## Our notes\n\nAsk the neighbour about the fence.\n"
    edited = reshaped.replace("the neighbour", "the neighbours")
    candidate = Candidate(stage="fix", text=edited, previous=reshaped)
    assert check_plan(candidate, GENERIC).accepted


def test_the_plan_plugin_declares_its_validator_through_the_contract(
    config: Config, tmp_path: Path
) -> None:
    plugin = plugin_for(config, "plan")
    assert plugin.validation is not None
    project = building_project(config)
    assert template_of(project) is not None
    transposed = PLAN.replace("| Objective | Plan | Assessment |", "| Field | Value | Note |", 1)
    verdict = plugin.check_deliverable(project, fix(transposed))
    assert (verdict.accepted, verdict.problem) == (False, "structure")
    assert "'Field | Value | Note' where it had 'Objective | Plan | Assessment'" in verdict.reason
