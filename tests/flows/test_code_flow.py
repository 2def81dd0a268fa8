"""Code mode in the pipeline's run against a real Prefect server: a stuck test-fix cycle waits
for the human's input and the run then builds, polishes and finishes; a plan the gate refuses
waits for override, from the Prefect form (these two waits are in the slow suite) or the CLI."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.code_setup import (
    BUGGY_BUILD,
    CALC_FIXED,
    COMPLETE_PLAN,
    FAIL,
    GOOD_BUILD,
    code_project,
    code_review,
    code_sections,
    write_script,
    wrote,
)
from tests.flows.conftest import run_cli, send_input, waiting_run
from tests.flows.test_build_flow import _start
from tests.flows.test_polish_flow import _wait_for
from tests.polish_setup import calls
from thoughtforge.config import load_config
from thoughtforge.core import git_repo
from thoughtforge.core.project import Project
from thoughtforge.core.state import read_chat, read_status
from thoughtforge.models import HaltReason, Phase

# Whole flows and CLI processes, minutes in all: CI runs them in its slow suite.
pytestmark = pytest.mark.slow

CLEAN = {"text": code_review({"total": 2, "passed": 2, "failed": 0})}
REFUSED_PLAN = {
    "plan-completeness": {"text": FAIL},
    "code-build": wrote(GOOD_BUILD),
    "code-review": CLEAN,
}


def _answered_in_the_run(
    env: dict[str, str],
    config_path: Path,
    project: Project,
    script: Path,
    api_url: str,
    halt_reason: HaltReason,
    answer: dict[str, str],
) -> str:
    """Run the pipeline in a process of its own until it waits at `halt_reason`, answer it on
    the Prefect API, and return what the process printed once it ended."""
    worker = _start(env, config_path, project, script, "wait")
    try:
        _wait_for(lambda: waiting_run(api_url, project.id) is not None, f"the {halt_reason} wait")
        status = read_status(project.dir)
        assert (status.phase, status.halt_reason) == (Phase.HALTED, halt_reason)
        send_input(api_url, project.id, answer)
        assert worker.wait(timeout=240) == 0
        return worker.stdout.read() if worker.stdout else ""
    finally:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGKILL)


@pytest.fixture
def refused_plan(tmp_path: Path, cli_config: Callable[..., Path]) -> tuple[Path, Project, Path]:
    """A code project whose plan the gate refuses: its config, the project, the agent's script."""
    config_path = cli_config(**code_sections(tmp_path))
    project = code_project(load_config(config_path), resources={"plan.md": COMPLETE_PLAN})
    return config_path, project, write_script(tmp_path / "s.yaml", **REFUSED_PLAN)


@pytest.mark.slow
def test_a_stuck_code_build_waits_for_input_then_builds_polishes_and_finishes(
    tmp_path: Path, cli_env: dict[str, str], cli_config: Callable[..., Path], prefect_api_url: str
) -> None:
    config_path = cli_config(**code_sections(tmp_path))
    project = code_project(load_config(config_path))
    unchanged = wrote({}, "tried")
    script = write_script(
        tmp_path / "s.yaml",
        **{
            "code-build": wrote(BUGGY_BUILD),
            "code-test-fix": [unchanged, unchanged, wrote({"calc.py": CALC_FIXED})],
            "code-review": CLEAN,
        },
    )
    answer = {"action": "provide_input", "message": "mul must multiply."}

    output = _answered_in_the_run(
        cli_env, config_path, project, script, prefect_api_url, HaltReason.STUCK, answer
    )

    assert "final phase: done" in output, output
    assert calls(project) == {"code-build": 1, "code-test-fix": 3, "code-review": 1}
    fixes = sorted((project.dir / ".scripted-agent" / "prompts").glob("*code-test-fix.md"))
    assert "mul must multiply." in fixes[-1].read_text()
    subjects = git_repo._repo(project.dir).git.log("--format=%s").splitlines()
    assert "Phase 3 complete: code built, all tests pass" in subjects
    assert subjects[0] == "Done"


@pytest.mark.slow
def test_a_refused_plan_waits_for_override_in_the_run(
    refused_plan: tuple[Path, Project, Path], cli_env: dict[str, str], prefect_api_url: str
) -> None:
    config_path, project, script = refused_plan

    output = _answered_in_the_run(
        cli_env,
        config_path,
        project,
        script,
        prefect_api_url,
        HaltReason.PLAN_INCOMPLETE,
        {"action": "override"},
    )

    assert "final phase: done" in output, output
    assert calls(project)["plan-completeness"] == 1
    notices = [m.content for m in read_chat(project.dir) if m.role == "system"]
    assert "The human overrode the Plan Completeness Gate." in notices


def test_cli_override_of_a_refused_plan_builds_it(
    refused_plan: tuple[Path, Project, Path], cli_env: dict[str, str]
) -> None:
    config_path, project, script = refused_plan
    env = {**cli_env, "THOUGHTFORGE_SCRIPT": str(script)}
    stopped = run_cli(env, config_path, "continue", project.id, "--auto-confirm")
    assert stopped.returncode == 3 and "plan_incomplete" in stopped.stderr, stopped.stderr
    refused = run_cli(env, config_path, "resume", project.id)
    assert refused.returncode == 1, refused.stderr
    assert "Resume is not possible now" in refused.stderr
    assert f"Next: thoughtforge override|revise|terminate {project.id}" in refused.stderr
    overridden = run_cli(env, config_path, "override", project.id)
    assert overridden.returncode == 0, overridden.stdout + overridden.stderr
    assert read_status(project.dir).phase is Phase.DONE
