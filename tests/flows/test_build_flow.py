"""Phase 3 in the pipeline's run against a real Prefect server: named section tasks in the one
run, the hand-over to Phase 4, a kill -9 mid-build, and a stuck build that waits for the human."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from prefect import get_client
from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterTags

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
from tests.flows.conftest import project_artifacts, run_cli, send_input, waiting_run
from tests.flows.test_polish_flow import _wait_for
from tests.polish_setup import calls
from thoughtforge.config import load_config
from thoughtforge.core.project import Project
from thoughtforge.core.state import read_chat, read_status
from thoughtforge.flows.pipeline import pipeline_in_process
from thoughtforge.models import HaltReason, Phase
from thoughtforge.stack.api import project_tag

# Whole flows and CLI processes, minutes in all: CI runs them in its slow suite.
pytestmark = pytest.mark.slow

# A flow run of its own process, tagged with the project like the CLI's runs.
RUNNER = """
import sys
from pathlib import Path
from thoughtforge.flows.pipeline import pipeline_in_process

project_id, config_path, mode = sys.argv[1:]
print("final phase:", pipeline_in_process(project_id, Path(config_path), mode == "auto"))
"""


def _start(
    env: dict[str, str], config: Path, project: Project, script: Path, mode: str
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", RUNNER, project.id, str(config), mode],
        env={**os.environ, **env, "THOUGHTFORGE_SCRIPT": str(script)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def _task_names(project_id: str) -> set[str]:
    with get_client(sync_client=True) as client:
        [run] = client.read_flow_runs(
            flow_run_filter=FlowRunFilter(tags=FlowRunFilterTags(all_=[project_tag(project_id)]))
        )
        return {
            t.name.rsplit("-", 1)[0] for t in client.read_task_runs() if t.flow_run_id == run.id
        }


def test_a_build_runs_through_the_polish_loop_to_done(
    tmp_path: Path,
    cli_config: Callable[..., Path],
    prefect_api_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config_path = cli_config()
    project = building_project(load_config(config_path))
    monkeypatch.setenv(
        "THOUGHTFORGE_SCRIPT", str(write_script(tmp_path / "s.yaml", every_section()))
    )
    assert pipeline_in_process(project.id, config_path, auto_confirm=True) == "done"
    assert read_status(project.dir).phase is Phase.DONE
    assert calls(project) == {"plan-build": len(SECTIONS), "plan-review": 1}
    sections = {step_label(n) for n in range(1, 8)}
    assert _task_names(project.id) == sections  # one run, no subflow; polish iterations log lines
    artifacts = project_artifacts(project.id)
    assert "7/7 sections" in str(artifacts[f"{project.id}-build"].data)


@pytest.mark.slow
def test_kill_9_mid_build_then_a_rerun_finishes_without_re_asking_earlier_sections(
    tmp_path: Path,
    cli_env: dict[str, str],
    cli_config: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config_path = cli_config()
    project = building_project(load_config(config_path))
    slow_third = {"plan-build": [*({"text": a} for a in every_section()[:2]), {"sleep": 120}]}
    slow = write_script(tmp_path / "slow.yaml", [], **slow_third)
    worker = _start(cli_env, config_path, project, slow, "auto")
    try:
        _wait_for(lambda: len(build_prompts(project)) == 3, "section 3 to be asked")
    finally:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()
    assert read_status(project.dir).phase is Phase.BUILDING
    on_disk = GENERIC.read_filled((project.docs_dir / "plan.md").read_text())
    assert set(on_disk) == {"summary", "goals.objective", "goals.plan", "goals.assessment"}

    rerun = {slot.id: f"Rerun: {content(slot.id)}" for slot in GENERIC.slots}
    fast = write_script(tmp_path / "fast.yaml", [answer(rerun)])
    monkeypatch.setenv("THOUGHTFORGE_SCRIPT", str(fast))
    assert pipeline_in_process(project.id, config_path, auto_confirm=True) == "done"
    assert calls(project)["plan-build"] == 4
    assert asked_slots(build_prompts(project)[3]) == [s.id for s in SECTIONS[2].slots]
    plan = GENERIC.read_filled((project.docs_dir / "plan.md").read_text())
    assert plan["goals.plan"] == content("goals.plan")
    assert plan["approach.plan"] == rerun["approach.plan"]


@pytest.mark.slow
def test_a_stuck_build_waits_and_the_human_input_finishes_it(
    tmp_path: Path, cli_env: dict[str, str], cli_config: Callable[..., Path], prefect_api_url: str
) -> None:
    config_path = cli_config()
    project = building_project(load_config(config_path))
    stuck = answer({}, stuck=True, reason="Which budget: 800 or 1500 euros?")
    script = write_script(tmp_path / "s.yaml", [section_answer(1), stuck, *every_section()[1:]])
    worker = _start(cli_env, config_path, project, script, "wait")
    try:
        _wait_for(lambda: waiting_run(prefect_api_url, project.id) is not None, "the stuck wait")
        status = read_status(project.dir)
        assert (status.phase, status.halt_reason) == (Phase.HALTED, HaltReason.STUCK)
        send_input(
            prefect_api_url, project.id, {"action": "provide_input", "message": "1500 euros."}
        )
        assert worker.wait(timeout=180) == 0
        output = worker.stdout.read() if worker.stdout else ""
    finally:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGKILL)
    assert "final phase: done" in output, output
    assert read_status(project.dir).phase is Phase.DONE
    human = [m for m in read_chat(project.dir) if m.role == "human"]
    assert [(m.content, m.phase) for m in human] == [("1500 euros.", Phase.BUILDING)]
    re_asked = build_prompts(project)[2]
    assert asked_slots(re_asked) == [s.id for s in SECTIONS[1].slots]
    assert "Guidance from the person:\n\n1500 euros." in re_asked


def test_cli_answer_without_a_waiting_run_unsticks_the_build(
    tmp_path: Path, cli_env: dict[str, str], cli_config: Callable[..., Path]
) -> None:
    config_path = cli_config()
    project = building_project(load_config(config_path))
    stuck = answer({}, stuck=True, reason="Which budget: 800 or 1500 euros?")
    script = write_script(tmp_path / "s.yaml", [section_answer(1), stuck, *every_section()[1:]])
    env = {**cli_env, "THOUGHTFORGE_SCRIPT": str(script)}
    stopped = run_cli(env, config_path, "continue", project.id, "--auto-confirm")
    assert stopped.returncode == 3 and "stuck" in stopped.stderr, stopped.stderr
    refused = run_cli(env, config_path, "answer", project.id, "   ")
    assert refused.returncode == 1 and "Write a message first" in refused.stderr
    answered = run_cli(env, config_path, "answer", project.id, "1500 euros.")
    assert answered.returncode == 0, answered.stdout + answered.stderr
    assert read_status(project.dir).phase is Phase.DONE
    assert "Guidance from the person:\n\n1500 euros." in build_prompts(project)[2]
    not_waiting = run_cli(env, config_path, "answer", project.id, "more")
    assert not_waiting.returncode == 1 and "Provide input is not possible now" in not_waiting.stderr
