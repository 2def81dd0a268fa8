"""The Phase 3 plan builder without Prefect, driven by a scripted agent."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import git
import pytest

from tests.build_setup import (
    GENERIC,
    SECTIONS,
    answer,
    asked_slots,
    build_prompts,
    building_project,
    content,
    every_section,
    section_answer,
    step_label,
    write_script,
)
from tests.interruption import Killed, kill_at
from tests.polish_setup import calls, polishing_project
from thoughtforge.config import Config
from thoughtforge.core import git_repo
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import read_events
from thoughtforge.core.state import read_chat, read_status
from thoughtforge.core.transition import transition
from thoughtforge.models import DeliverableType, HaltReason, Phase
from thoughtforge.phases import intake
from thoughtforge.phases.plugin_loader import plugin_for
from thoughtforge.phases.polish.loop import PolishLoop
from thoughtforge.phases.safety import SafetyViolation, write_checked
from thoughtforge.plugins.plan.builder import (
    MILESTONE,
    OUTPUT_INCOMPLETE,
    OUTPUT_MISSING,
    BuildOutcome,
    PlanBuilder,
)
from thoughtforge.plugins.plan.traceability_file import CONSTRAINTS_UNREADABLE

T = TypeVar("T")
NASTY = "Rent a van | or borrow one\nsecond line {{x}} and {{project_name}} stay literal"
UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


@pytest.fixture
def script(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Path]:
    def use(build: list[str], **steps: Any) -> Path:
        path = write_script(tmp_path / "script.yaml", build, **steps)
        monkeypatch.setenv("THOUGHTFORGE_SCRIPT", str(path))
        return path

    return use


def build(project: Project, config: Config, **kwargs: Any) -> BuildOutcome:
    return PlanBuilder(project, config, **kwargs).run()


def plan_text(project: Project) -> str:
    return (project.docs_dir / "plan.md").read_text()


def filled(project: Project) -> dict[str, str]:
    return GENERIC.read_filled(plan_text(project))


def last_subject(project: Project) -> str:
    return str(git.Repo(project.dir).head.commit.summary)


def committed(project: Project) -> bool:
    return not git.Repo(project.dir).git.status("--porcelain", "--", "docs").strip()


def events(project: Project, name: str) -> list[dict[str, Any]]:
    return [e for e in read_events(project.dir) if e["event"] == name]


# --- building ------------------------------------------------------------------------------------


def test_builds_every_section_into_well_formed_opa_tables(
    config: Config, script: Callable[..., Path]
) -> None:
    answers = every_section()
    answers[1] = section_answer(2, **{"goals.plan": NASTY})
    answers[3] = section_answer(4, **{"timeline.assessment": "a|b|c\n| row? |"})
    script(answers)
    project = building_project(config)
    outcome = build(project, config)
    assert outcome.verdict == "built", outcome.reason
    assert calls(project)["plan-build"] == len(SECTIONS) == 7
    plan = plan_text(project)
    for section in SECTIONS:
        assert f"## {section.heading}" in plan
    rows = [line for line in plan.splitlines() if line.startswith("|")]
    assert len(rows) == 3 * (len(SECTIONS) - 1)
    assert all(len(UNESCAPED_PIPE.split(row)) == 5 for row in rows), rows
    expected = {slot.id: content(slot.id) for slot in GENERIC.slots}
    expected |= {"goals.plan": NASTY, "timeline.assessment": "a|b|c\n| row? |"}
    assert filled(project) == expected
    assert "{{x}}" in plan and "{{project_name}} stay literal" in plan


def test_success_commits_and_moves_to_polishing_with_the_milestone(
    config: Config, script: Callable[..., Path]
) -> None:
    script(every_section())
    project = building_project(config)
    outcome = build(project, config)
    assert (outcome.verdict, outcome.reason) == ("built", MILESTONE)
    assert outcome.deliverable == project.docs_dir / "plan.md"
    assert read_status(project.dir).phase is Phase.POLISHING
    assert last_subject(project) == "Phase 3 complete: plan built" and committed(project)
    [moved] = events(project, "phase_transition")
    assert (moved["to_phase"], moved["summary"]) == (
        "polishing",
        f"Project 'Garden Shed' — {MILESTONE}",
    )


def test_each_section_is_a_named_step_and_progress_is_reported(
    config: Config, script: Callable[..., Path]
) -> None:
    script(every_section())
    project = building_project(config)
    names: list[str] = []
    reports: list[list[int]] = []

    def runner(name: str, step: Callable[[], T]) -> T:
        names.append(name)
        return step()

    build(
        project,
        config,
        runner=runner,
        on_progress=lambda progress: reports.append(
            [int(i.detail.split("/")[0]) for i in progress.items]
        ),
    )
    assert names == [step_label(n) for n in range(1, 8)]
    assert names[3] == "build section 4/7: Timeline & Milestones"
    assert reports[0] == [1, 0, 0, 0, 0, 0, 0] and reports[-1] == [1, 3, 3, 3, 3, 3, 3]


def test_slots_of_later_sections_given_early_are_kept_and_not_asked_again(
    config: Config, script: Callable[..., Path]
) -> None:
    everything = {slot.id: content(slot.id) for slot in GENERIC.slots}
    script([answer(everything)])
    project = building_project(config)
    assert build(project, config).verdict == "built"
    assert calls(project)["plan-build"] == 1


def test_demo_script_builds_the_generic_plan_in_one_call_and_polishes_to_done(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("THOUGHTFORGE_SCRIPT", raising=False)
    project = building_project(config)
    outcome = build(project, config)
    assert outcome.verdict == "built", outcome.reason
    assert calls(project)["plan-build"] == 1
    assert not events(project, "template_selected")[0]["warning"]
    assert PolishLoop(project, config).run().verdict == "done"


# --- unusable answers ----------------------------------------------------------------------------


def test_tbd_is_re_asked_once_then_halts_naming_the_slot(
    config: Config, script: Callable[..., Path]
) -> None:
    script([section_answer(1), section_answer(2, **{"goals.plan": "TBD"})])
    project = building_project(config)
    outcome = build(project, config)
    assert outcome.halt_reason is HaltReason.BUILD_INCOMPLETE
    assert "goals.plan" in outcome.reason and "placeholder text 'TBD'" in outcome.reason
    assert calls(project)["plan-build"] == 3
    retry = build_prompts(project)[-1]
    assert asked_slots(retry) == ["goals.plan"]
    assert "not usable (placeholder text 'TBD')" in retry
    status = read_status(project.dir)
    assert (status.phase, status.halt_reason, status.halted_from) == (
        Phase.HALTED,
        HaltReason.BUILD_INCOMPLETE,
        Phase.BUILDING,
    )
    assert committed(project) and last_subject(project) == "building halted (build_incomplete)"
    assert set(filled(project)) == {"summary", "goals.objective", "goals.assessment"}
    assert "goals.plan" in read_chat(project.dir)[-1].content
    refusals = events(project, "answer_unusable")
    assert [(e["level"], e["step"]) for e in refusals] == [("warning", "plan-build")] * 2
    assert "goals.plan (placeholder text 'TBD')" in refusals[0]["why"]


def test_a_usable_re_ask_answer_continues_the_build(
    config: Config, script: Callable[..., Path]
) -> None:
    empty_then_fixed = [section_answer(2, **{"goals.plan": "  "}), section_answer(2)]
    script([section_answer(1), *empty_then_fixed, *every_section()[2:]])
    project = building_project(config)
    assert build(project, config).verdict == "built"
    assert "not usable (empty)" in build_prompts(project)[2]


def test_a_missing_slot_is_re_asked(config: Config, script: Callable[..., Path]) -> None:
    partial = answer({"goals.objective": content("goals.objective")})
    script([section_answer(1), partial, *every_section()[1:]])
    project = building_project(config)
    assert build(project, config).verdict == "built"
    assert asked_slots(build_prompts(project)[2]) == ["goals.plan", "goals.assessment"]
    assert "not usable (no content was given)" in build_prompts(project)[2]


def test_unknown_slot_is_discarded_with_a_warning(
    config: Config, script: Callable[..., Path]
) -> None:
    first = section_answer(1, **{"budget.total": "900 euros"})
    script([first, *every_section()[1:]])
    project = building_project(config)
    assert build(project, config).verdict == "built"
    [warning] = events(project, "unknown_slots_discarded")
    assert (warning["level"], warning["slots"]) == ("warning", ["budget.total"])
    assert "900 euros" not in plan_text(project)


def test_unreadable_answer_is_re_asked_then_halts_as_answer_unusable(
    config: Config, script: Callable[..., Path]
) -> None:
    script(["Sure! Here is the plan you asked for."])
    project = building_project(config)
    outcome = build(project, config)
    assert outcome.halt_reason is HaltReason.ANSWER_UNUSABLE
    assert "unusable twice" in outcome.reason and "another agent" in outcome.reason
    assert calls(project)["plan-build"] == 2
    assert 'previous answer (it began: "Sure! Here is' in build_prompts(project)[-1]
    kept = sorted((project.dir / "rejected").iterdir())
    assert [p.read_text() for p in kept] == ["Sure! Here is the plan you asked for.\n"] * 2
    assert not git_repo.is_dirty(project.dir), "the rejected answers are committed with the halt"


def test_failing_agent_halts_with_agent_failure_and_commits_the_partial_plan(
    config: Config, script: Callable[..., Path]
) -> None:
    crash = {"text": "", "exit": 1, "stderr": "model overloaded"}
    script([], **{"plan-build": [{"text": section_answer(1)}, crash]})
    project = building_project(config)
    outcome = build(project, config)
    assert outcome.halt_reason is HaltReason.AGENT_FAILURE and "model overloaded" in outcome.reason
    assert calls(project)["plan-build"] == 3  # section 1, then section 2 tried twice
    assert committed(project) and set(filled(project)) == {"summary"}
    assert "resume, terminate" in read_chat(project.dir)[-1].content


# --- stuck and the human's input -----------------------------------------------------------------


def test_stuck_halts_with_the_reason_then_guidance_re_asks_with_a_fresh_retry(
    config: Config, script: Callable[..., Path]
) -> None:
    stuck = answer({}, stuck=True, reason="Which budget: 800 or 1500 euros?")
    tbd_then_fixed = [section_answer(2, **{"goals.plan": "TBD"}), section_answer(2)]
    script([section_answer(1), stuck, *tbd_then_fixed, *every_section()[2:]])
    project = building_project(config)
    outcome = build(project, config)
    assert outcome.halt_reason is HaltReason.STUCK
    assert "Which budget: 800 or 1500 euros?" in outcome.reason
    assert "Goals & Scope" in outcome.reason
    assert committed(project) and set(filled(project)) == {"summary"}
    assert "provide input, terminate" in read_chat(project.dir)[-1].content

    intake.add_human_message(project, "Budget is 1500 euros, decided.")
    transition(project, Phase.BUILDING)
    assert build(project, config).verdict == "built"
    prompts = build_prompts(project)
    assert asked_slots(prompts[2]) == ["goals.objective", "goals.plan", "goals.assessment"]
    assert "Guidance from the person:\n\nBudget is 1500 euros, decided." in prompts[2]
    assert "Guidance from the person:\n\nNone." in prompts[0]


def test_a_message_sent_mid_build_reaches_the_next_section_and_is_marked_read(
    config: Config, script: Callable[..., Path]
) -> None:
    """Before, the guidance was read once when the run started: a word said meanwhile waited for
    the next run."""
    script(every_section())
    project = building_project(config)

    def runner(name: str, step: Callable[[], T]) -> T:
        result = step()
        if name == step_label(2):
            intake.add_human_message(project, "Keep the shed under 10 square metres.")
        return result

    assert build(project, config, runner=runner).verdict == "built"
    prompts = build_prompts(project)
    assert all("Guidance from the person:\n\nNone." in prompt for prompt in prompts[:2])
    assert all("Keep the shed under 10 square metres." in prompt for prompt in prompts[2:])
    [said] = [m for m in read_chat(project.dir) if m.role == "human"]
    assert said.read_by == step_label(3)


# --- resuming ------------------------------------------------------------------------------------


@pytest.mark.parametrize("after", [False, True], ids=["before-section-4", "after-section-4"])
def test_a_kill_mid_build_resumes_without_re_asking_filled_slots(
    config: Config, script: Callable[..., Path], after: bool
) -> None:
    script(every_section())
    project = building_project(config)
    with pytest.raises(Killed):
        build(project, config, runner=kill_at(step_label(4), after=after))
    done = 4 if after else 3
    assert calls(project)["plan-build"] == done
    assert read_status(project.dir).phase is Phase.BUILDING
    assert len(filled(project)) == 1 + 3 * (done - 1)

    assert build(project, config).verdict == "built"
    assert calls(project)["plan-build"] == len(SECTIONS)
    resumed = build_prompts(project)[done:]
    assert asked_slots(resumed[0]) == [s.id for s in SECTIONS[done].slots]
    earlier = {slot.id for section in SECTIONS[:done] for slot in section.slots}
    assert not earlier & {slot for prompt in resumed for slot in asked_slots(prompt)}
    assert [e["filled"] for e in events(project, "build_resumed")] == [1 + 3 * (done - 1)]


def test_placeholder_left_in_the_plan_on_disk_is_asked_again(
    config: Config, script: Callable[..., Path]
) -> None:
    script([section_answer(2)])
    project = building_project(config)
    on_disk = {slot.id: content(slot.id) for slot in GENERIC.slots} | {"goals.plan": "TBD"}
    (project.docs_dir / "plan.md").write_text(GENERIC.render("Garden Shed", on_disk))
    assert build(project, config).verdict == "built"
    [prompt] = build_prompts(project)
    assert asked_slots(prompt) == ["goals.plan"]


def test_a_plan_edited_out_of_its_template_halts_and_is_left_alone(
    config: Config, script: Callable[..., Path]
) -> None:
    script(every_section())
    project = building_project(config)
    (project.docs_dir / "plan.md").write_text("# My own plan\n\nJust some notes.\n")
    outcome = build(project, config)
    assert outcome.halt_reason is HaltReason.FILE_SYSTEM_ERROR
    assert "cannot be resumed" in outcome.reason
    assert plan_text(project) == "# My own plan\n\nJust some notes.\n"
    assert "plan-build" not in calls(project)


# --- context window ------------------------------------------------------------------------------


def test_an_oversized_prompt_carries_only_the_section_its_spec_part_and_the_previous_one(
    config: Config, script: Callable[..., Path]
) -> None:
    filler = "\n\n".join(f"## Background {n}\n\n" + "Long history. " * 400 for n in range(5))
    spec = (
        "# Spec\n\n## Deliverable Structure\n\nSTRUCTURE-MARK seven OPA sections.\n\n"
        f"{filler}\n\n## Dependencies\n\nDEPENDENCY-MARK timber delivery.\n"
    )
    config.agent("demo").context_window_tokens = 3_000
    script(every_section())
    project = building_project(config, spec=spec)
    assert build(project, config).verdict == "built"
    prompts = build_prompts(project)
    risks, timeline = prompts[5], prompts[3]
    assert "DEPENDENCY-MARK" in risks and "STRUCTURE-MARK" not in risks
    assert "Long history" not in risks
    assert "STRUCTURE-MARK" in timeline and "DEPENDENCY-MARK" not in timeline
    assert "Only the preceding section is shown" in risks
    assert content("resources.plan") in risks and content("goals.plan") not in risks
    assert asked_slots(risks) == ["risks.objective", "risks.plan", "risks.assessment"]
    warnings = events(project, "build_context_truncated")
    assert len(warnings) == len(SECTIONS) and warnings[0]["level"] == "warning"
    assert all(len(p) < 4 * 3_000 for p in prompts)


def test_a_prompt_that_fits_carries_the_whole_spec_and_plan(
    config: Config, script: Callable[..., Path]
) -> None:
    script(every_section())
    project = building_project(config)
    build(project, config)
    last = build_prompts(project)[-1]
    assert "Scope Boundaries" in last and content("goals.plan") in last
    assert not events(project, "build_context_truncated")


# --- templates -----------------------------------------------------------------------------------


def test_an_unknown_plan_type_falls_back_to_generic_and_tells_the_human_once(
    config: Config, script: Callable[..., Path]
) -> None:
    script([section_answer(1), answer({}, stuck=True, reason="Which shed size?")])
    project = building_project(config, plan_type="Plan — knitting circle")
    build(project, config)
    warning = "No template found for plan type 'Plan — knitting circle'. Using generic template."
    [selected] = events(project, "template_selected")
    assert (selected["template"], selected["warning"]) == ("generic", warning)
    transition(project, Phase.BUILDING)
    build(project, config)
    notices = [m for m in read_chat(project.dir) if m.content == warning]
    assert len(notices) == 1 and notices[0].role == "system"


def test_a_specific_plan_type_selects_its_template(
    config: Config, script: Callable[..., Path]
) -> None:
    script([answer({"summary": "A small wedding in June."}, stuck=True, reason="Which venue?")])
    project = building_project(config, plan_type="Plan — wedding")
    build(project, config)
    assert events(project, "template_selected")[0]["template"] == "event"
    assert "Event Plan" in plan_text(project)


def test_no_templates_halts_with_the_spec_message(
    config: Config, script: Callable[..., Path], tmp_path: Path
) -> None:
    script(every_section())
    project = building_project(config)
    (tmp_path / "empty").mkdir()
    outcome = build(project, config, templates_dir=tmp_path / "empty")
    assert outcome.halt_reason is HaltReason.FILE_SYSTEM_ERROR
    assert outcome.reason.startswith(
        "No plan templates found. Ensure at least `generic.hbs` exists in "
        "`/plugins/plan/templates/`."
    )
    assert "plan-build" not in calls(project)


# --- safety --------------------------------------------------------------------------------------


def test_a_plan_mode_write_of_source_code_is_refused(config: Config) -> None:
    project = building_project(config)
    rules = plugin_for(config, DeliverableType.PLAN).safety
    with pytest.raises(SafetyViolation, match=r"refused write_source of 'src/app\.py'"):
        write_checked(project.dir, "src/app.py", "print('hello')\n", rules)
    assert not (project.dir / "src").exists()
    write_checked(project.dir, "docs/plan.md", "# Plan\n", rules)
    assert plan_text(project) == "# Plan\n"


def _tooled(config: Config) -> None:
    config.agents.available["tooled"] = config.agent("demo").model_copy(
        update={"flags": ["--dangerously-skip-permissions"]}
    )


def test_an_agent_with_tool_flags_is_refused_before_any_call(
    config: Config, script: Callable[..., Path]
) -> None:
    _tooled(config)
    script(every_section())
    project = building_project(config, agent="tooled")
    outcome = build(project, config)
    assert outcome.halt_reason is HaltReason.AGENT_FAILURE
    assert "--dangerously-skip-permissions" in outcome.reason
    assert not (project.dir / ".scripted-agent").exists()
    assert not (project.docs_dir / "plan.md").exists()


def test_the_polish_loop_refuses_a_tool_flag_agent_before_any_call(
    config: Config, script: Callable[..., Path]
) -> None:
    _tooled(config)
    config.polish.reviewer_agent = "tooled"
    script(every_section())
    project = polishing_project(config)
    outcome = PolishLoop(project, config).run()
    assert outcome.halt_reason is HaltReason.AGENT_FAILURE
    assert "agent 'tooled'" in outcome.reason and "--dangerously-skip-permissions" in outcome.reason
    assert not (project.dir / ".scripted-agent").exists()


# --- Phase 3 → 4 ---------------------------------------------------------------------------------


def test_a_plan_missing_after_the_build_halts_as_output_missing(
    config: Config, script: Callable[..., Path]
) -> None:
    script(every_section())
    project = building_project(config)

    def delete_after_last(name: str, step: Callable[[], T]) -> T:
        result = step()
        if name == step_label(len(SECTIONS)):
            (project.docs_dir / "plan.md").unlink()
        return result

    outcome = build(project, config, runner=delete_after_last)
    assert (outcome.halt_reason, outcome.reason) == (
        HaltReason.PHASE3_OUTPUT_MISSING,
        OUTPUT_MISSING,
    )
    assert read_status(project.dir).phase is Phase.HALTED


def test_a_plan_below_the_minimum_size_halts_as_output_incomplete(
    config: Config, script: Callable[..., Path]
) -> None:
    config.phase3_completeness.plan_min_chars = 100_000
    script(every_section())
    project = building_project(config)
    outcome = build(project, config)
    assert outcome.halt_reason is HaltReason.PHASE3_OUTPUT_INCOMPLETE
    assert outcome.reason.startswith(OUTPUT_INCOMPLETE) and "100000" in outcome.reason
    assert committed(project)


@pytest.mark.parametrize("damage", ["missing", "not-utf8"])
def test_unreadable_constraints_halt_with_file_system_error(
    config: Config, script: Callable[..., Path], damage: str
) -> None:
    script(every_section())
    project = building_project(config)
    constraints = project.docs_dir / "constraints.md"
    if damage == "missing":
        constraints.unlink()
    else:
        constraints.write_bytes(b"\xff\xfe not utf-8")
    outcome = build(project, config)
    assert outcome.halt_reason is HaltReason.FILE_SYSTEM_ERROR
    assert outcome.reason.startswith(CONSTRAINTS_UNREADABLE)
    assert read_status(project.dir).phase is Phase.HALTED


def test_a_project_not_in_building_is_refused(config: Config) -> None:
    project = polishing_project(config)
    with pytest.raises(Exception, match="not 'building'"):
        PlanBuilder(project, config)
