from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from thoughtforge.adapters.agents import AgentCall, invoke_agent
from thoughtforge.adapters.agents import scripted as scripted_agent
from thoughtforge.config import Config
from thoughtforge.errors import AgentFailure

SCRIPT = {
    "steps": {
        "brain-dump-intake": [{"text": "first distillation"}, {"text": "second distillation"}],
        "plan-review": {
            "by_iteration": {2: {"text": "review two"}, "default": {"text": "review n"}}
        },
        "plan-fix": {"echo_after": "Plan:\n\n"},
        "spec-building": {"file": "spec-answer.md"},
        "plan-build": {"text": "", "exit": 4, "stderr": "scripted crash"},
        "code-build": {"text": "built", "write": {"src/app.py": "x = 1\n"}, "delete": ["old.py"]},
        "code-fix": {"text": "", "write": {"half.py": "x ="}, "exit": 1},
        "escape": {"text": "no", "write": {"../outside.py": "evil"}},
    }
}


@pytest.fixture
def scripted(config: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Config:
    script = tmp_path / "script.yaml"
    script.write_text(yaml.safe_dump(SCRIPT))
    (tmp_path / "spec-answer.md").write_text("## Deliverable Overview\nA wedding.\n")
    monkeypatch.setenv("THOUGHTFORGE_SCRIPT", str(script))
    return config


def _ask(
    config: Config, project_dir: Path, step: str, prompt: str = "p", iteration: int | None = None
) -> str:
    call = AgentCall(step=step, project_dir=project_dir, phase="x", iteration=iteration)
    return invoke_agent(config, "demo", prompt, call)


def test_answers_by_step_in_call_order_and_repeats_the_last(
    scripted: Config, tmp_path: Path
) -> None:
    answers = [_ask(scripted, tmp_path, "brain-dump-intake") for _ in range(3)]
    assert answers == ["first distillation", "second distillation", "second distillation"]


def test_answers_by_iteration_with_default(scripted: Config, tmp_path: Path) -> None:
    assert _ask(scripted, tmp_path, "plan-review", iteration=2) == "review two"
    assert _ask(scripted, tmp_path, "plan-review", iteration=7) == "review n"


def test_echo_after_marker_and_file_answers(scripted: Config, tmp_path: Path) -> None:
    prompt = "Fix these.\n\nPlan:\n\n# My plan\n\n| a | b |\n"
    assert _ask(scripted, tmp_path, "plan-fix", prompt) == "# My plan\n\n| a | b |"
    assert _ask(scripted, tmp_path, "spec-building") == "## Deliverable Overview\nA wedding."


def test_keeps_every_prompt_it_received(scripted: Config, tmp_path: Path) -> None:
    _ask(scripted, tmp_path, "brain-dump-intake", "the brain dump")
    [saved] = (tmp_path / ".scripted-agent" / "prompts").iterdir()
    assert saved.name == "0001-brain-dump-intake.md"
    assert saved.read_text() == "the brain dump"


def test_unknown_step_and_scripted_crash_fail_clearly(scripted: Config, tmp_path: Path) -> None:
    with pytest.raises(AgentFailure, match="no reply for step 'code-review'"):
        _ask(scripted, tmp_path, "code-review")
    with pytest.raises(AgentFailure, match="exit code 4: scripted crash"):
        _ask(scripted, tmp_path, "plan-build")


def test_builtin_demo_script_answers_the_plan_pipeline(config: Config, tmp_path: Path) -> None:
    intake = _ask(config, tmp_path, "brain-dump-intake")
    assert intake.startswith("## Deliverable Type")
    assert _ask(config, tmp_path, "plan-review") == '{"issues": [], "evidence": []}'


DEMO_REVIEW_PROMPT = """Review the plan.

Acceptance criteria, numbered:

1. Every milestone has a date and an owner.
2. The budget stays under 15k.
3. Guests are fed.

Plan:

# Plan

## Timeline & Milestones

| Objective | Plan | Assessment |
| --- | --- | --- |
| Reach it | Week 1: the owner books the venue. Week 4: a review. | Each milestone has a date |

## Resources & Budget

Stay within the budget of 15k: each cost is logged.
"""


def test_the_demo_reviewer_quotes_the_passage_sharing_most_words_with_each_criterion(
    config: Config, tmp_path: Path
) -> None:
    """It judges nothing, but each quote is really there, in the section it names; a criterion
    no passage shares a word with gets none."""
    answer = json.loads(_ask(config, tmp_path, "plan-review", DEMO_REVIEW_PROMPT))
    assert answer == {
        "issues": [],
        "evidence": [
            {
                "criterion": 1,
                "section": "Timeline & Milestones",
                "quote": "Each milestone has a date",
            },
            {
                "criterion": 2,
                "section": "Resources & Budget",
                "quote": "Stay within the budget of 15k: each cost is logged.",
            },
        ],
    }


def test_help_says_it_is_a_demo_agent() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "thoughtforge.adapters.agents.scripted", "--help"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0
    assert "DEMO/TEST AGENT - not an AI" in result.stdout


def test_a_coding_answer_writes_and_deletes_files_in_the_project(
    scripted: Config, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "old.py").write_text("old")
    assert _ask(scripted, project, "code-build") == "built"
    assert (project / "src" / "app.py").read_text() == "x = 1\n"
    assert not (project / "old.py").exists()


def test_a_failing_coding_answer_leaves_its_files_then_fails(
    scripted: Config, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    with pytest.raises(AgentFailure):
        _ask(scripted, project, "code-fix")
    assert (project / "half.py").read_text() == "x ="


def test_a_coding_answer_never_writes_outside_the_project(scripted: Config, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    with pytest.raises(AgentFailure, match="leads outside the project"):
        _ask(scripted, project, "escape")
    assert not (tmp_path / "outside.py").exists()


@pytest.mark.parametrize(
    ("script", "named"),
    [
        ({"steps": {"x": {"txt": "typo"}}}, "steps.x: unknown key txt"),
        ({"steps": {"x": {"text": "a", "echo": True}}}, "give only one of"),
        ({"steps": {"x": {"text": 3}}}, "steps.x.text: 3 is no str"),
        ({"steps": {"x": {"exit": True}}}, "steps.x.exit: True is no int"),
        ({"steps": {"x": {"sleep": False}}}, "steps.x.sleep: False is no int"),
        ({"steps": {"x": {"delete": ["a.py", 2]}}}, "steps.x.delete: paths and texts are strings"),
        ({"steps": {"x": {"write": {"a.py": 1}}}}, "steps.x.write: paths and texts are strings"),
        ({"steps": {"x": {"revision": "all"}}}, "steps.x.revision: one of proposal"),
        ({"steps": {"x": [{"text": "a"}, "b"]}}, "steps.x[1]: a mapping is expected, not str"),
        ({"steps": {"x": {"by_iteration": {1: {"sleep": "1"}}}}}, "by_iteration.1.sleep"),
        ({"steps": ["x"]}, "steps: a mapping is expected, not list"),
        ({"steps": {}, "more": 1}, "the script: unknown key more"),
    ],
)
def test_a_script_it_cannot_follow_is_refused_naming_where(
    tmp_path: Path, script: dict[str, object], named: str
) -> None:
    """Checked as strictly as the reply's fields are typed, without pydantic (the agent is a
    new process at every call): a typo or a wrong type is never read as an empty reply."""
    path = tmp_path / "script.yaml"
    path.write_text(yaml.safe_dump(script))
    result = subprocess.run(
        [sys.executable, "-m", "thoughtforge.adapters.agents.scripted", "--script", str(path)],
        input="p",
        capture_output=True,
        text=True,
        env={**os.environ, "THOUGHTFORGE_STEP": "x", "THOUGHTFORGE_PROJECT_DIR": str(tmp_path)},
    )
    assert result.returncode == 3, result.stderr
    assert f"script {path} is invalid: " in result.stderr
    assert named in result.stderr
    assert result.stdout == ""


def test_the_agent_starts_without_pydantic_for_a_plain_reply(tmp_path: Path) -> None:
    """Started per call: pydantic would be most of its start-up (bench/bench_import_costs.py)."""
    asked = (
        "import sys, thoughtforge.adapters.agents.scripted as s; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'pydantic'))"
    )
    result = subprocess.run([sys.executable, "-c", asked], capture_output=True, text=True)
    assert result.stdout.strip() == "[]", result.stderr


def test_every_field_of_a_reply_is_checked() -> None:
    """The checks' table names each field the reply has: a field added without one would be
    taken unchecked."""
    assert set(scripted_agent._KINDS) == {f.name for f in dataclasses.fields(scripted_agent.Reply)}
