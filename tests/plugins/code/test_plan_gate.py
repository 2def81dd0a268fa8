"""The Plan Completeness Gate's pure parts: finding the plan, the prompt, reading the verdict."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from thoughtforge.errors import UnusableReply
from thoughtforge.plugins.code.plan_gate import (
    CompletenessVerdict,
    check_plan,
    completeness_prompt,
    find_plan,
    parse_verdict,
)
from thoughtforge.plugins.plan.template_selection import TEMPLATES_DIR
from thoughtforge.prompting import PromptLibrary

OPA_PLAN = """# Shop — Plan

## Goals & Scope

| objective | plan | assessment |
| --- | --- | --- |
| Sell online | Build a shop | Orders arrive |
"""
TEMPLATE_HEADINGS = """# Shop

## Summary
Text.
## Context & Goals
Text.
## **Architecture:**
Text.
## Milestones
Text.
## Notes
Text.
"""
NOTES = "# Meeting notes\n\n## Attendees\n\nAnn, Bob.\n"


def write(folder: Path, name: str, text: str = NOTES) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def resources(tmp_path: Path) -> Path:
    folder = tmp_path / "resources"
    folder.mkdir()
    return folder


# --- finding the plan -----------------------------------------------------------------------


def test_no_markdown_skips_the_gate(resources: Path) -> None:
    write(resources, "brief.txt", OPA_PLAN)
    assert find_plan(resources) is None
    assert find_plan(resources.parent / "missing") is None


def test_a_single_markdown_file_is_the_plan_whatever_it_looks_like(resources: Path) -> None:
    write(resources, "notes.txt")
    only = write(resources, "notes.md")
    assert find_plan(resources) == only


def test_of_several_the_first_structured_one_by_name_is_the_plan(resources: Path) -> None:
    write(resources, "a-notes.md")
    plan = write(resources, "b-plan.md", OPA_PLAN)
    write(resources, "c-plan.md", OPA_PLAN)
    assert find_plan(resources) == plan


def test_template_headings_make_a_plan_without_opa_tables(resources: Path) -> None:
    write(resources, "a-notes.md")
    plan = write(resources, "b-plan.MD", TEMPLATE_HEADINGS)
    assert find_plan(resources) == plan


def test_more_than_half_of_one_templates_headings_is_needed(
    resources: Path, tmp_path: Path
) -> None:
    templates = tmp_path / "templates"
    write(
        templates, "trip.hbs", "# {{project_name}}\n\n## Route\n\n## Budget\n\n## Gear\n\n## Food\n"
    )
    write(resources, "a-notes.md")
    write(resources, "b-half.md", "## Route\n\n## Budget\n\n## Attendees\n")
    assert find_plan(resources, templates) is None
    plan = write(resources, "c-most.md", "## route\n\n## Budget:\n\n## Gear\n")
    assert find_plan(resources, templates) == plan


def test_headings_inside_a_code_fence_do_not_count(resources: Path) -> None:
    write(resources, "a-notes.md")
    fenced = "```\n## Summary\n## Context & Goals\n## Architecture\n## Milestones\n```\n"
    write(resources, "b-readme.md", fenced)
    assert find_plan(resources) is None


def test_several_unstructured_files_skip_the_gate(resources: Path) -> None:
    write(resources, "a-notes.md")
    write(resources, "b-notes.md")
    assert find_plan(resources) is None


def test_nested_folders_count_like_phase_one_reads_them(resources: Path) -> None:
    write(resources, "a-notes.md")
    plan = write(resources, "docs/plan.md", OPA_PLAN)
    assert find_plan(resources) == plan


def test_hidden_files_and_folders_are_ignored(resources: Path) -> None:
    write(resources, ".draft.md", OPA_PLAN)
    write(resources, ".cache/plan.md", OPA_PLAN)
    only = write(resources, "notes.md")
    assert find_plan(resources) == only


def test_a_symlink_out_of_resources_is_never_followed(resources: Path, tmp_path: Path) -> None:
    outside = write(tmp_path / "elsewhere", "secret-plan.md", OPA_PLAN)
    (resources / "a-plan.md").symlink_to(outside)
    (resources / "linked").symlink_to(outside.parent, target_is_directory=True)
    write(resources, "b-notes.md")
    write(resources, "c-notes.md")
    assert find_plan(resources) is None
    (resources / "c-notes.md").unlink()
    assert find_plan(resources) == resources / "b-notes.md"


def test_a_link_to_another_resource_is_that_resource(resources: Path) -> None:
    notes = write(resources, "a-notes.md")
    (resources / "b-link.md").symlink_to(notes)
    assert find_plan(resources) == notes


def test_the_shipped_templates_are_what_headings_match(resources: Path, tmp_path: Path) -> None:
    write(resources, "a-notes.md")
    plan = write(resources, "b-plan.md", TEMPLATE_HEADINGS)
    assert (TEMPLATES_DIR / "engineering.hbs").is_file()
    assert find_plan(resources, templates_dir=tmp_path / "no-templates") is None
    assert find_plan(resources, templates_dir=TEMPLATES_DIR) == plan


# --- the verdict ----------------------------------------------------------------------------


def test_a_fenced_verdict_inside_prose_is_read() -> None:
    answer = (
        "Here is my assessment.\n```json\n"
        '{"verdict": "fail", "reasons": ["No acceptance criteria", "Database undecided"]}\n'
        "```\nHope that helps."
    )
    verdict = parse_verdict(answer)
    assert verdict == CompletenessVerdict(
        verdict="fail", reasons=["No acceptance criteria", "Database undecided"]
    )
    assert not verdict.passed


def test_the_verdict_is_read_in_any_case() -> None:
    verdict = parse_verdict('Verdict: {"verdict": " PASS ", "reasons": []} as asked')
    assert verdict.verdict == "pass"
    assert verdict.passed


def test_a_fail_without_reasons_is_refused() -> None:
    for answer in ('{"verdict": "fail"}', '{"verdict": "fail", "reasons": ["  "]}'):
        with pytest.raises(UnusableReply, match="verdict does not fit") as refused:
            parse_verdict(answer)
        assert refused.value.reply == answer
    with pytest.raises(UnusableReply, match="needs at least one reason"):
        parse_verdict('{"verdict": "fail", "reasons": []}')


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        ("The plan looks fine to me.", "no JSON object with a 'verdict' field"),
        ('{"result": "pass"}', "no JSON object with a 'verdict' field"),
        ('{"verdict": "maybe", "reasons": ["?"]}', "verdict: Input should be 'pass' or 'fail'"),
    ],
)
def test_an_unusable_answer_is_refused_saying_why(answer: str, why: str) -> None:
    with pytest.raises(UnusableReply, match=why):
        parse_verdict(answer)


# --- prompt and asking ----------------------------------------------------------------------


def scripted(answers: list[str], prompts: list[str]) -> Callable[[str], str]:
    def ask(prompt: str) -> str:
        prompts.append(prompt)
        return answers.pop(0)

    return ask


def test_the_prompt_gives_the_signals_and_the_plan() -> None:
    prompt = completeness_prompt(PromptLibrary(), "PLAN {{x}} TEXT")
    assert prompt.endswith("PLAN {{x}} TEXT\n")
    for signal in ("Objective / Plan / Assessment", "Acceptance criteria", "Dependencies"):
        assert signal in prompt
    assert '{"verdict": "pass|fail", "reasons": ["..."]}' in prompt


def test_garbage_is_asked_again_with_why_then_the_good_answer_counts() -> None:
    prompts: list[str] = []
    ask = scripted(["I think it passes.", '{"verdict": "pass", "reasons": []}'], prompts)
    verdict = check_plan("THE PLAN", ask, PromptLibrary(), attempts=2)
    assert verdict.passed
    assert "could not be used" not in prompts[0]
    assert prompts[1].startswith(prompts[0])
    assert "no JSON object with a 'verdict' field" in prompts[1]


def test_the_last_refusal_is_raised_when_every_attempt_is_unusable() -> None:
    prompts: list[str] = []
    ask = scripted(["nothing", '{"verdict": "fail"}'], prompts)
    with pytest.raises(UnusableReply, match="verdict does not fit"):
        check_plan("THE PLAN", ask, PromptLibrary(), attempts=2)
    assert len(prompts) == 2
