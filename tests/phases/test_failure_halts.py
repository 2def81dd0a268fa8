"""One failure, one halt: an agent that fails, or a git repository an agent reconfigured, halts a
project with the same reason and the same words in Phase 1 (intake), Phase 2 (spec) and Phase 3
(a plan build and a code build), each run as its flow runs it, with the scripted agent; and a
coding agent that fails in the polish loop halts as every other agent does."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.build_setup import building_project, every_section
from tests.code_setup import (
    BUGGY_BUILD,
    GOOD_BUILD,
    ISSUE,
    code_project,
    code_review,
    code_sections,
    polishing_code_project,
)
from tests.conftest import BRAIN_DUMP
from tests.phases.conftest import distillation
from tests.phases.test_spec import proposal, spec_building_project
from thoughtforge.config import Config, load_config
from thoughtforge.core.creation import create_project
from thoughtforge.core.project import Project
from thoughtforge.core.state import read_chat, read_status
from thoughtforge.flows.intake import run_intake
from thoughtforge.flows.spec import run_spec
from thoughtforge.models import HaltReason, Phase
from thoughtforge.phases.failure_halts import FIX_AND_RESUME
from thoughtforge.phases.polish.loop import PolishLoop
from thoughtforge.plugins.code.builder import CodeBuilder
from thoughtforge.plugins.plan.builder import PlanBuilder

CRASH = {"text": "", "exit": 1, "stderr": "model overloaded"}
HOOK = {".git/hooks/pre-commit": "#!/bin/sh\necho an agent's hook ran\n"}
Halted = tuple[HaltReason | None, str]
"""The reason a project halted with, and its words with the project's folder and step named
alike (`same_words`)."""


@pytest.fixture
def steps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    """The scripted agent's answers, per step."""

    def use(**answers: Any) -> None:
        path = tmp_path / "script.yaml"
        path.write_text(yaml.safe_dump({"steps": answers}))
        monkeypatch.setenv("THOUGHTFORGE_SCRIPT", str(path))

    return use


def same_words(project: Project, text: str, step: str) -> str:
    return text.replace(str(project.dir.resolve()), "PROJECT").replace(f"'{step}'", "'STEP'")


def in_conversation(project: Project, step: str) -> Halted:
    """What the flow's halt said in the chat (Phases 1–2 say it as a notice)."""
    status = read_status(project.dir)
    assert status.phase is Phase.HALTED
    said = [m.content for m in read_chat(project.dir) if m.role == "system"][-1]
    return status.halt_reason, same_words(project, said, step)


def phase_1(config: Config) -> Halted:
    project = create_project(config, brain_dump=BRAIN_DUMP)
    run_intake(project, config, auto_confirm=True)
    return in_conversation(project, "brain-dump-intake")


def phase_2(config: Config) -> Halted:
    project = spec_building_project(config)
    run_spec(project, config, auto_confirm=True)
    return in_conversation(project, "spec-building")


def plan_build(config: Config) -> Halted:
    project = building_project(config)
    outcome = PlanBuilder(project, config).run()
    assert read_status(project.dir).halt_reason is outcome.halt_reason
    return outcome.halt_reason, same_words(project, outcome.reason, "plan-build")


def code_build(tmp_path: Path, write_config: Callable[..., Path], step: str) -> Halted:
    sections = code_sections(tmp_path, code={"step_mode": True})
    sections["concurrency"] = {"max_parallel_runs": 4}  # the other phases' projects are halted
    config = load_config(write_config(**sections))
    project = code_project(config)
    outcome = CodeBuilder(project, config).run()
    assert read_status(project.dir).halt_reason is outcome.halt_reason
    return outcome.halt_reason, same_words(project, outcome.reason, step)


def test_an_agent_that_fails_halts_alike_in_phases_1_2_and_3(
    config: Config,
    tmp_path: Path,
    write_config: Callable[..., Path],
    steps: Callable[..., None],
) -> None:
    """Before, Phases 1–2 said "The agent failed twice: agent 'demo' failed at step …" and
    Phase 3 "agent 'demo' failed at step …" with no word of what to do."""
    asked = ("brain-dump-intake", "spec-building", "plan-build", "code-steps")
    steps(**dict.fromkeys(asked, CRASH))
    halts = {
        "phase 1": phase_1(config),
        "phase 2": phase_2(config),
        "plan build": plan_build(config),
        "code build": code_build(tmp_path, write_config, "code-steps"),
    }

    assert len(set(halts.values())) == 1, halts
    reason, words = halts["phase 1"]
    assert reason is HaltReason.AGENT_FAILURE
    assert words.startswith("agent 'demo' failed at step 'STEP' (attempt 1: ")
    assert "model overloaded" in words and words.endswith(f"). {FIX_AND_RESUME}")


def test_a_git_repository_an_agent_reconfigured_halts_alike_in_phases_1_2_and_3(
    config: Config,
    tmp_path: Path,
    write_config: Callable[..., Path],
    steps: Callable[..., None],
) -> None:
    """Before, a hook an agent left halted `plan_mode_violation` in Phases 1–2 and in a plan
    build (a project with no mode yet, or no code in it), `file_system_error` in a code build."""
    steps(
        **{
            "brain-dump-intake": {"text": distillation(), "write": HOOK},
            "spec-building": {"text": proposal(), "write": HOOK},
            "plan-build": [{"text": text, "write": HOOK} for text in every_section()],
            "code-steps": {"text": '{"steps": [{"title": "calc"}]}'},
            "code-build": {"text": "done", "write": {**GOOD_BUILD, **HOOK}},
        }
    )
    halts = {
        "phase 1": phase_1(config),
        "phase 2": phase_2(config),
        "plan build": plan_build(config),
        "code build": code_build(tmp_path, write_config, "code-build"),
    }

    assert len(set(halts.values())) == 1, halts
    reason, words = halts["phase 1"]
    assert reason is HaltReason.FILE_SYSTEM_ERROR
    assert words == (
        "the git repository in PROJECT was changed by something other than ThoughtForge "
        "(.git/hooks/pre-commit); no git command runs there until that is removed. Remove "
        "them, then resume."
    )


def test_a_coding_agent_that_fails_in_the_polish_loop_halts_as_every_agent_does(
    tmp_path: Path, write_config: Callable[..., Path], steps: Callable[..., None]
) -> None:
    """Before, the code fixer's failure was turned into a halt by its own copy of the map,
    worded without what to do."""
    failing = code_review({"total": 2, "passed": 1, "failed": 1}, ISSUE)
    steps(**{"code-review": {"text": failing}, "code-fix": CRASH})
    config = load_config(write_config(**code_sections(tmp_path)))
    project = polishing_code_project(config, BUGGY_BUILD)

    outcome = PolishLoop(project, config).run()

    assert outcome.halt_reason is HaltReason.AGENT_FAILURE
    assert outcome.reason.startswith("agent 'demo' failed at step 'code-fix' (attempt 1: ")
    assert "model overloaded" in outcome.reason and outcome.reason.endswith(f"). {FIX_AND_RESUME}")
