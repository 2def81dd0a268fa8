"""`thoughtforge polish` as a user runs it, against a real Prefect server."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import git
import pytest
from prefect import get_client
from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterTags, LogFilter

from tests.flows.conftest import project_artifacts, run_cli, start_cli, waiting_run
from tests.polish_setup import ECHO_FIX, calls, polishing_project, review, write_script
from tests.process_checks import alive
from thoughtforge.config import load_config
from thoughtforge.core import git_repo
from thoughtforge.core.project import Project
from thoughtforge.core.state import read_polish_state, read_status, read_thread
from thoughtforge.models import HaltReason, Phase
from thoughtforge.stack.api import project_tag


def _project(config_path: Path) -> Project:
    return polishing_project(load_config(config_path))


def _wait_for(condition: Callable[[], bool], what: str, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.3)


def test_converges_with_a_log_line_per_iteration_and_artifacts(
    tmp_path: Path, cli_env: dict[str, str], cli_config: Callable[..., Path]
) -> None:
    config = cli_config()
    project = _project(config)
    script = write_script(tmp_path / "s.yaml", {1: review(1, 2, 0), "default": review()})
    result = run_cli(cli_env, config, "polish", project.id, THOUGHTFORGE_SCRIPT=str(script))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Done." in result.stdout and "docs/plan.md" in result.stdout.replace("\n", "")
    assert read_status(project.dir).phase is Phase.DONE
    with get_client(sync_client=True) as client:
        [run] = client.read_flow_runs(
            flow_run_filter=FlowRunFilter(tags=FlowRunFilterTags(all_=[project_tag(project.id)]))
        )
        lines = [log.message for log in client.read_logs(LogFilter(flow_run_id={"any_": [run.id]}))]
    iterations = [line for line in lines if line.startswith("iteration ")]
    assert iterations == [
        "iteration 1: 1 critical, 2 medium, 0 minor — continue",
        "iteration 2: 0 critical, 0 medium, 0 minor — done",
    ], lines
    artifacts = project_artifacts(project.id)
    assert f"{project.id}-trajectory" in artifacts and f"{project.id}-convergence" in artifacts
    chart = str(artifacts[f"{project.id}-convergence"].data)
    assert "termination" in chart and "▓▓" in chart, chart


def test_a_halt_exits_3_and_names_the_next_steps(
    tmp_path: Path, cli_env: dict[str, str], cli_config: Callable[..., Path]
) -> None:
    config = cli_config()
    project = _project(config)
    script = write_script(
        tmp_path / "s.yaml",
        {1: review(10, 20, 10), 2: review(5, 15, 10), 3: review(2, 10, 8), 4: review(5, 10, 10)},
    )
    result = run_cli(cli_env, config, "polish", project.id, THOUGHTFORGE_SCRIPT=str(script))
    assert result.returncode == 3
    assert (
        "guard_hallucination" in result.stderr
        and f"thoughtforge resume|override|terminate {project.id}" in result.stderr
    )
    assert read_status(project.dir).halt_reason is HaltReason.GUARD_HALLUCINATION
    overridden = run_cli(cli_env, config, "override", project.id)
    assert overridden.returncode == 0, overridden.stderr
    assert read_status(project.dir).phase is Phase.DONE


OUTCOMES = {
    "plateau": (
        {1: review(0, 4, 3, "a"), 2: review(0, 4, 3, "b"), 3: review(0, 4, 3, "c")},
        None,
        0,
    ),
    "fabrication": (
        {1: review(0, 5, 8), 2: review(0, 5, 8), 3: review(0, 4, 8), 4: review(0, 4, 16)},
        None,
        HaltReason.GUARD_FABRICATION,
    ),
    "fix_regression": (
        {1: review(2, 4, 4), 2: review(2, 5, 5), 3: review(3, 6, 6)},
        None,
        HaltReason.GUARD_FIX_REGRESSION,
    ),
    "max_iterations": (
        {1: review(5, 4, 3, "a"), 2: review(5, 3, 2, "b"), 3: review(5, 4, 2, "c")},
        None,
        HaltReason.GUARD_MAX_ITERATIONS,
    ),
    "garbage_review": ({"default": "Looks great to me!"}, None, HaltReason.REVIEW_MALFORMED),
    "fragment_fixer": (
        {"default": review(1, 0, 0, "a"), 2: review(1, 0, 0, "b")},
        {"text": "# Wedding plan\n"},
        HaltReason.FIX_OUTPUT_INVALID,
    ),
}


# Each outcome's verdict is the loop's (tests/phases/polish/test_loop.py); through the CLI, one
# in the default suite, the others with the slow suite.
@pytest.mark.parametrize(
    "name",
    [n if n == "fragment_fixer" else pytest.param(n, marks=pytest.mark.slow) for n in OUTCOMES],
)
def test_each_outcome_through_the_cli(
    name: str, tmp_path: Path, cli_env: dict[str, str], cli_config: Callable[..., Path]
) -> None:
    reviews, fix, expected = OUTCOMES[name]
    config = cli_config(polish={"max_iterations": 3 if name == "max_iterations" else 10})
    project = _project(config)
    plan_before = (project.docs_dir / "plan.md").read_text()
    script = write_script(tmp_path / "s.yaml", reviews, fix)
    result = run_cli(cli_env, config, "polish", project.id, THOUGHTFORGE_SCRIPT=str(script))
    status = read_status(project.dir)
    if expected == 0:
        assert (result.returncode, status.phase) == (0, Phase.DONE), result.stderr
    else:
        assert (result.returncode, status.halt_reason) == (3, expected), result.stderr
        assert str(expected) in result.stderr
    if name == "fragment_fixer":
        assert (project.docs_dir / "plan.md").read_text() == plan_before


@pytest.mark.slow
def test_say_while_polishing_guides_the_next_iteration_once_and_says_so(
    tmp_path: Path, cli_env: dict[str, str], cli_config: Callable[..., Path]
) -> None:
    """Before, `say` answered "queued for the AI's next call" and no prompt ever carried it."""
    config = cli_config(agents={"call_timeout_seconds": 60})
    project = _project(config)
    reviews = {1: review(2, 2, 2), 2: review(1, 1, 1), "default": review()}
    echo = ECHO_FIX
    slow_first_fix = {"by_iteration": {1: {**echo, "sleep": 10}, "default": echo}}
    script = write_script(tmp_path / "s.yaml", reviews, fix=slow_first_fix)
    worker = start_cli(cli_env, config, "polish", project.id, THOUGHTFORGE_SCRIPT=str(script))
    prompts = project.dir / ".scripted-agent" / "prompts"
    _wait_for(lambda: len(list(prompts.glob("*plan-fix.md"))) == 1, "fix #1 to start")
    said = run_cli(cli_env, config, "say", project.id, "Keep every cost in euros.")
    assert said.returncode == 0, said.stderr
    assert said.stdout.strip() == (
        "No run is waiting: message queued; it will be read at the next polish iteration."
    )
    assert len(list(prompts.glob("*.md"))) == 2, "the message came while fix #1 ran"
    output = worker.stdout.read() if worker.stdout else ""
    assert worker.wait(timeout=120) == 0, output

    given = [
        (path.stem.split("-", 1)[1], "Keep every cost in euros." in path.read_text())
        for path in sorted(prompts.glob("*.md"))
    ]
    assert given == [
        ("plan-review", False), ("plan-fix", False),
        ("plan-review", True), ("plan-fix", True),
        ("plan-review", False),
    ]  # fmt: skip
    [message] = [m for m in read_thread(project.dir) if m.content == "Keep every cost in euros."]
    assert message.read_by == "polish iteration 2"
    shown = run_cli(cli_env, config, "chat", project.id)
    assert "read at polish iteration 2" in shown.stdout


@pytest.mark.slow
def test_kill_9_mid_fix_then_rerun_resumes_without_repeating_anything(
    tmp_path: Path, cli_env: dict[str, str], cli_config: Callable[..., Path]
) -> None:
    config = cli_config()
    project = _project(config)
    reviews = {1: review(2, 2, 2), 2: review(1, 1, 1), "default": review()}
    echo = ECHO_FIX
    slow_fix = {"by_iteration": {1: echo, "default": {**echo, "sleep": 120}}}
    slow = write_script(tmp_path / "slow.yaml", reviews, fix=slow_fix)
    worker = start_cli(cli_env, config, "polish", project.id, THOUGHTFORGE_SCRIPT=str(slow))
    prompts = project.dir / ".scripted-agent" / "prompts"
    _wait_for(lambda: len(list(prompts.glob("*plan-fix.md"))) == 2, "fix #2 to start")
    os.killpg(worker.pid, signal.SIGKILL)
    worker.wait()
    assert read_polish_state(project.dir).iteration == 1
    assert read_status(project.dir).phase is Phase.POLISHING

    fast = write_script(tmp_path / "fast.yaml", reviews)
    result = run_cli(cli_env, config, "polish", project.id, THOUGHTFORGE_SCRIPT=str(fast))
    assert result.returncode == 0, result.stdout + result.stderr
    subjects = [str(c.summary).split(":")[0] for c in git.Repo(project.dir).iter_commits()][::-1][
        2:
    ]
    assert subjects == ["review #1", "fix #1", "review #2", "fix #2", "review #3", "Done"]
    assert [e.iteration for e in read_polish_state(project.dir).trajectory] == [1, 2, 3]
    assert calls(project)["plan-review"] == 3


def test_wait_pauses_on_halt_and_cli_resume_continues_the_same_run(
    tmp_path: Path, cli_env: dict[str, str], cli_config: Callable[..., Path], prefect_api_url: str
) -> None:
    config = cli_config(polish={"max_iterations": 2})
    project = _project(config)
    script = write_script(
        tmp_path / "s.yaml", {1: review(3, 3, 3, "a"), 2: review(3, 3, 2, "b"), "default": review()}
    )
    worker = start_cli(
        cli_env, config, "polish", "--wait", project.id, THOUGHTFORGE_SCRIPT=str(script)
    )
    try:
        _wait_for(lambda: waiting_run(prefect_api_url, project.id) is not None, "the run to pause")
        assert read_status(project.dir).halt_reason is HaltReason.GUARD_MAX_ITERATIONS
        sent = run_cli(cli_env, config, "resume", project.id)
        assert sent.returncode == 0 and "Sent Resume to the waiting run" in sent.stdout, sent.stderr
        assert worker.wait(timeout=180) == 0, worker.stdout.read() if worker.stdout else ""
    finally:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGKILL)
    assert read_status(project.dir).phase is Phase.DONE
    log = (project.dir / "polish_log.md").read_text()
    assert "Halted by guard_max_iterations at iteration 2, resumed by human" in log
    assert [e.iteration for e in read_polish_state(project.dir).trajectory] == [1, 2, 3]


@pytest.mark.parametrize("action", [pytest.param("resume", marks=pytest.mark.slow), "terminate"])
def test_recovery_verbs_without_a_paused_run_act_on_the_files(
    tmp_path: Path, cli_env: dict[str, str], cli_config: Callable[..., Path], action: str
) -> None:
    config = cli_config(polish={"max_iterations": 1})
    project = _project(config)
    script = write_script(tmp_path / "s.yaml", {1: review(3, 3, 3), "default": review()})
    assert (
        run_cli(cli_env, config, "polish", project.id, THOUGHTFORGE_SCRIPT=str(script)).returncode
        == 3
    )
    result = run_cli(cli_env, config, action, project.id, THOUGHTFORGE_SCRIPT=str(script))
    assert result.returncode == 0, result.stdout + result.stderr
    status = read_status(project.dir)
    if action == "resume":
        assert status.phase is Phase.DONE
    else:
        assert status.halt_reason is HaltReason.HUMAN_TERMINATED


@pytest.mark.slow
def test_sigterm_mid_polish_stops_cleanly_and_continue_ends_as_an_uninterrupted_run(
    tmp_path: Path, cli_env: dict[str, str], cli_config: Callable[..., Path]
) -> None:
    config = cli_config()
    reviews = {1: review(2, 2, 2), 2: review(1, 1, 1), "default": review()}
    echo = ECHO_FIX
    fast = write_script(tmp_path / "fast.yaml", reviews)
    control = _project(config)
    assert (
        run_cli(cli_env, config, "polish", control.id, THOUGHTFORGE_SCRIPT=str(fast)).returncode
        == 0
    )

    project = _project(config)
    slow_fix = {"by_iteration": {1: echo, "default": {**echo, "sleep": 120}}}
    slow = write_script(tmp_path / "slow.yaml", reviews, fix=slow_fix)
    worker = start_cli(cli_env, config, "polish", project.id, THOUGHTFORGE_SCRIPT=str(slow))
    prompts = project.dir / ".scripted-agent" / "prompts"
    _wait_for(lambda: len(list(prompts.glob("*plan-fix.md"))) == 2, "fix #2 to start")
    worker.send_signal(signal.SIGTERM)
    output = worker.stdout.read() if worker.stdout else ""
    assert worker.wait(timeout=60) == 130, output
    assert "thoughtforge continue" in output and "Traceback" not in output
    assert read_polish_state(project.dir).iteration == 1
    assert not (project.dir / ".processes.json").exists(), "the agent in flight was stopped"

    resumed = run_cli(cli_env, config, "continue", project.id, THOUGHTFORGE_SCRIPT=str(fast))
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    # The same trajectory, but for what it cost: the stopped run paid for the fix it stopped.
    assert read_polish_state(project.dir).trajectory == [
        e.model_copy(update={"timestamp": mine.timestamp, "tokens": mine.tokens, "usd": mine.usd})
        for e, mine in zip(
            read_polish_state(control.dir).trajectory,
            read_polish_state(project.dir).trajectory,
            strict=True,
        )
    ]
    assert (project.dir / "docs" / "plan.md").read_text() == (
        control.dir / "docs" / "plan.md"
    ).read_text()


def _signalled_in_fix_2(
    tmp_path: Path, cli_env: dict[str, str], config: Path, project: Project, seconds: float
) -> subprocess.Popen[str]:
    """`polish` in a process of its own, sent SIGTERM once its second fix (which takes
    `seconds`) is under way."""
    reviews = {1: review(2, 2, 2), 2: review(1, 1, 1), "default": review()}
    echo = ECHO_FIX
    slow_fix = {"by_iteration": {1: echo, "default": {**echo, "sleep": seconds}}}
    slow = write_script(tmp_path / "slow.yaml", reviews, fix=slow_fix)
    worker = start_cli(cli_env, config, "polish", project.id, THOUGHTFORGE_SCRIPT=str(slow))
    prompts = project.dir / ".scripted-agent" / "prompts"
    _wait_for(lambda: len(list(prompts.glob("*plan-fix.md"))) == 2, "fix #2 to start")
    worker.send_signal(signal.SIGTERM)
    return worker


def _until_line(worker: subprocess.Popen[str], start: str) -> str:
    """What the run printed up to (and with) the first line that starts with `start`."""
    assert worker.stdout is not None
    seen = ""
    for line in worker.stdout:
        seen += line
        if line.startswith(start):
            return seen
    raise AssertionError(f"the run ended without printing {start!r}:\n{seen}")


def test_sigterm_lets_the_fix_in_flight_finish_records_its_iteration_then_stops(
    tmp_path: Path, cli_env: dict[str, str], cli_config: Callable[..., Path]
) -> None:
    """Before, SIGTERM killed the fix at once and its iteration was lost."""
    config = cli_config(agents={"call_timeout_seconds": 60})
    project = _project(config)
    worker = _signalled_in_fix_2(tmp_path, cli_env, config, project, 4)
    output = worker.stdout.read() if worker.stdout else ""
    assert worker.wait(timeout=60) == 130, output
    assert "Stopping: the agent's call in flight may finish (up to 60 s)" in output
    assert "thoughtforge continue" in output and "Traceback" not in output
    state = read_polish_state(project.dir)
    assert state.iteration == 2, "the fix that finished is recorded as its iteration"
    assert calls(project) == {"plan-review": 2, "plan-fix": 2}, "no step after it"
    head = git.Repo(project.dir).head.commit
    assert str(head.summary).startswith("fix #2:") and not git_repo.is_dirty(project.dir)
    assert read_status(project.dir).phase is Phase.POLISHING
    assert not (project.dir / ".processes.json").exists()


@pytest.mark.slow
def test_a_second_sigterm_stops_at_once_and_the_iteration_is_abandoned(
    tmp_path: Path, cli_env: dict[str, str], cli_config: Callable[..., Path]
) -> None:
    config = cli_config(agents={"call_timeout_seconds": 300})
    project = _project(config)
    worker = _signalled_in_fix_2(tmp_path, cli_env, config, project, 300)
    output = _until_line(worker, "Stopping:")
    worker.send_signal(signal.SIGTERM)
    output += worker.stdout.read() if worker.stdout else ""
    assert worker.wait(timeout=60) == 130, output
    assert read_polish_state(project.dir).iteration == 1
    assert not (project.dir / ".processes.json").exists(), "the agent in flight was stopped"


@pytest.mark.slow
def test_a_run_killed_with_9_leaves_neither_agent_nor_temporary_server_behind(
    tmp_path: Path, cli_env: dict[str, str], cli_config: Callable[..., Path]
) -> None:
    """Before, the agent in flight and the temporary Prefect server (~195 MB) kept running.
    The server now stops itself with the command, and the agent dies with it (`setpriv
    --pdeathsig`); the project's next run still starts clean."""
    config = cli_config()
    project = _project(config)
    reviews = {1: review(2, 2, 2), "default": review()}
    slow = write_script(tmp_path / "slow.yaml", reviews, fix={"text": "x", "sleep": 600})
    alone = {k: v for k, v in cli_env.items() if k != "PREFECT_API_URL"}
    worker = start_cli(alone, config, "polish", project.id, THOUGHTFORGE_SCRIPT=str(slow))
    prompts = project.dir / ".scripted-agent" / "prompts"
    _wait_for(lambda: any(prompts.glob("*plan-fix.md")), "fix #1 to start", seconds=240)
    recorded = json.loads((project.dir / ".processes.json").read_text())
    server = next(
        int(p) for p in recorded if b"prefect_server" in Path(f"/proc/{p}/cmdline").read_bytes()
    )
    agent = next(int(p) for p in recorded if int(p) != server)
    os.kill(worker.pid, signal.SIGKILL)  # ThoughtForge alone, as the OOM killer would
    worker.wait()
    _wait_for(lambda: not alive(server), "the server to stop itself")
    _wait_for(lambda: not alive(agent), "the agent to die with ThoughtForge", 10)

    fast = write_script(tmp_path / "fast.yaml", reviews)
    resumed = run_cli(alone, config, "continue", project.id, THOUGHTFORGE_SCRIPT=str(fast))
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    # Its own temporary server, stopped at its clean exit, is no longer recorded either.
    assert not (project.dir / ".processes.json").exists()


def test_a_long_loop_publishes_its_progress_while_it_runs(
    tmp_path: Path,
    cli_config: Callable[..., Path],
    prefect_api_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With the publishing interval at zero, every iteration updates the chart; at its default,
    a loop that ends within it publishes once (see `bench/bench_polish_overhead.py`)."""
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

    from thoughtforge.flows import polish

    config = cli_config()
    project = _project(config)
    script = write_script(
        tmp_path / "s.yaml", {1: review(2, 2, 0), 2: review(1, 1, 0), "default": review()}
    )
    monkeypatch.setenv("THOUGHTFORGE_SCRIPT", str(script))
    monkeypatch.setattr(polish, "PUBLISH_EVERY_SECONDS", 0.0)
    assert polish.polish_in_process(project.id, config, wait_for_human=False).verdict == "done"
    key = f"{project.id}-convergence"
    with get_client(sync_client=True) as client:
        versions = client.read_artifacts(
            artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=[key]))
        )
    assert len(versions) == 4  # after each of the 3 iterations, and once at the end
    row = re.compile(r"^\| \d+ \| \d+ \| \d+ \| \d+ \| \d+ \| (yes|no) \|", re.MULTILINE)
    assert sorted(len(row.findall(str(v.data))) for v in versions) == [1, 2, 3, 3]


def test_a_run_started_here_is_tagged_with_its_project_and_its_iterations_are_not_task_runs(
    tmp_path: Path,
    cli_config: Callable[..., Path],
    prefect_api_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`thoughtforge resume` finds the run by its tag; a task run per iteration would cost the
    polish about 13 ms an iteration (its state events, and the server recording them)."""
    from thoughtforge.flows import polish

    config = cli_config()
    project = _project(config)
    script = write_script(tmp_path / "s.yaml", {1: review(1, 1, 0), "default": review()})
    monkeypatch.setenv("THOUGHTFORGE_SCRIPT", str(script))
    assert polish.polish_in_process(project.id, config, wait_for_human=False).verdict == "done"
    with get_client(sync_client=True) as client:
        [run] = client.read_flow_runs(
            flow_run_filter=FlowRunFilter(tags=FlowRunFilterTags(all_=[project_tag(project.id)]))
        )
        task_runs = [t for t in client.read_task_runs() if t.flow_run_id == run.id]
    assert read_polish_state(project.dir).iteration == 2
    assert task_runs == []
