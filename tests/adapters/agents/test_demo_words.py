"""The demo agent answers each brain dump with its own words: the three examples give three
different, recognisable deliverables (golden files; UPDATE_GOLDEN=1 rewrites them)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from thoughtforge.adapters.agents import AgentCall, invoke_agent
from thoughtforge.adapters.agents.demo_words import from_brain_dump, from_prompt, human_turns
from thoughtforge.config import Config
from thoughtforge.prompting import PromptLibrary

GOLDEN = Path(__file__).parent / "golden"
EXAMPLES = {
    "wedding-plan": ("We're getting married next June", "budget is 15k all in"),
    "launch-strategy": ("I'm a solo developer", "I hate cold outreach."),
    "kitchen-timer-cli": ("I keep burning things", "must work offline"),
}


def _answers(config: Config, project_dir: Path, brain_dump: str) -> dict[str, str]:
    """Phases 1–3 as the demo agent answers them, on the prompts the pipeline sends."""
    prompts = PromptLibrary()
    project_dir.mkdir()

    def ask(step: str, prompt: str) -> str:
        call = AgentCall(step=step, project_dir=project_dir, phase="x")
        return invoke_agent(config, "demo", prompt, call)

    intent = ask(
        "brain-dump-intake",
        prompts.render(
            "brain-dump-intake",
            conversation=f"Human:\n{brain_dump}",
            resources="(none)",
            deliverable_types="plan, code",
        ),
    )
    (project_dir / "docs").mkdir()
    (project_dir / "docs" / "intent.md").write_text(f"# Intent\n\n{intent}")
    spec = ask(
        "spec-building",
        prompts.render(
            "spec-building", intent=intent, conversation="", structure_guidance="the sections"
        ),
    )
    plan = ask(
        "plan-build",
        prompts.render("plan-build", slots="", spec=spec, plan_so_far="", guidance=""),
    )
    return {"intent.md": intent, "spec.md": spec, "plan.json": plan}


@pytest.mark.parametrize("example", EXAMPLES)
def test_each_example_gets_its_own_intent_spec_and_plan(
    example: str, config: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before, every brain dump gave the same plan of "a four-week personal project"."""
    monkeypatch.delenv("THOUGHTFORGE_SCRIPT", raising=False)
    brain_dump = (REPO_ROOT / "examples" / f"{example}.md").read_text()
    answers = _answers(config, tmp_path / "project", brain_dump)
    about, limit = EXAMPLES[example]
    objective = answers["intent.md"].split("## Objective\n", 1)[1]
    assert objective.startswith(about)  # the project is named from its first sentence
    assert limit in answers["intent.md"].split("## Constraints", 1)[1]
    assert limit in answers["spec.md"]
    slots = json.loads(answers["plan.json"])["slots"]
    assert about in slots["summary"] and limit in " ".join(slots.values())
    for name, text in answers.items():
        golden = GOLDEN / example / name
        if os.environ.get("UPDATE_GOLDEN"):
            golden.parent.mkdir(parents=True, exist_ok=True)
            golden.write_text(text)
        assert text == golden.read_text(), name


def test_the_person_s_turns_are_read_and_sorted_word_for_word() -> None:
    prompt = (
        "Human:\nok so, plan a garden party. Budget 300 euros.\n\nAI:\n## Objective\nx\n\n"
        "Human:\nNot sure about the date? I'd like a relaxed feel."
        "\n\nResources the person provided:\n\nnotes.md"
    )
    words = from_brain_dump(human_turns(prompt))
    assert words.about == "Plan a garden party."
    assert words.ask == "I'd like a relaxed feel."
    assert words.constraints == ["Budget 300 euros."]
    assert words.unknowns == ["Not sure about the date?"]
    assert "## Objective" not in words.objective


def test_a_json_template_gets_escaped_words_and_no_placeholder_word_survives() -> None:
    words = from_brain_dump('A "todo" app. It must cost $0.')
    values = words.placeholders(for_json=True)
    assert json.loads(f'"{values["objective"]}"') == 'A "to-do" app.'
    assert json.loads(f'"{values["constraints"]}"') == "- It must cost $0."


def test_a_hint_is_no_sentence_and_a_correction_corrects() -> None:
    """The page's "Deliverable type: plan" was glued to the next correction and became a
    constraint, while the objective kept the old head count."""
    prompt = (
        "Human:\nA garden party for 25 people in June. Budget 300 euros.\n\n"
        "Deliverable type: plan\n\nAI:\n## Objective\nx\n\n"
        "Human:\nCorrection: it's 30 people now\n\nHuman:\nKeep it relaxed"
        "\n\nResources the person provided:\n\nnotes.md"
    )
    words = from_prompt(prompt)
    assert words.about == "A garden party for 30 people in June."
    assert words.constraints == ["Budget 300 euros."]
    assert words.assumptions == ["Keep it relaxed"]
    assert "Deliverable type" not in words.model_dump_json()
