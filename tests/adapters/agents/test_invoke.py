from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.process_checks import alive
from thoughtforge.adapters.agents import AgentCall, invoke_agent
from thoughtforge.adapters.agents.kinds import normalise
from thoughtforge.adapters.agents.output import AgentOutputError
from thoughtforge.config import Config
from thoughtforge.core.agent_activity import (
    STREAM_CAP_BYTES,
    STREAM_FILE,
    AgentActivity,
    begin_call,
    call_in_flight,
    end_call,
    stream_output,
    streamed_text,
)
from thoughtforge.core.creation import create_project
from thoughtforge.core.processes import AGENT_MARK, PROCESSES_FILE
from thoughtforge.core.project_log import read_events
from thoughtforge.core.run_lock import hold_run_lock
from thoughtforge.core.state import utc_now
from thoughtforge.errors import AgentFailure, FailureKind
from thoughtforge.process_tree import descendants

HOSTILE = (
    "Budget: $(rm -rf ~) and `whoami` and $HOME; 'quotes' \"double\" \\ back\n\x00nul ünïcödé 🎉\n"
)


def _call(tmp_path: Path, **extra: object) -> AgentCall:
    return AgentCall(step="plan-review", project_dir=tmp_path, phase="polishing", **extra)


def test_prompt_reaches_the_agent_byte_for_byte_on_stdin_never_argv(
    config: Config, tmp_path: Path, record_dir: Path
) -> None:
    answer = invoke_agent(config, "recorder", HOSTILE, _call(tmp_path, iteration=4))
    assert answer == "recorded"
    assert (record_dir / "stdin.bin").read_bytes() == HOSTILE.encode("utf-8")
    assert json.loads((record_dir / "argv.json").read_text()) == []
    env = json.loads((record_dir / "env.json").read_text())
    assert env["THOUGHTFORGE_STEP"] == "plan-review"
    assert env["THOUGHTFORGE_PROJECT_DIR"] == str(tmp_path)
    assert env["THOUGHTFORGE_PHASE"] == "polishing"
    assert env["THOUGHTFORGE_ITERATION"] == "4"


def test_iteration_is_unset_outside_phase_four(
    config: Config, tmp_path: Path, record_dir: Path
) -> None:
    invoke_agent(config, "recorder", "hi", _call(tmp_path))
    assert "THOUGHTFORGE_ITERATION" not in json.loads((record_dir / "env.json").read_text())


def test_timeout_kills_the_whole_process_group_and_is_not_retried(
    config: Config, tmp_path: Path, record_dir: Path
) -> None:
    """The call's deadline is spent: a retry would only pass it (before, a second attempt
    doubled the time a persistent overload took to halt)."""
    config.agents.call_timeout_seconds = 1
    started = time.monotonic()
    with pytest.raises(AgentFailure) as caught:
        invoke_agent(config, "sleeper", "wait forever", _call(tmp_path))
    assert time.monotonic() - started < 1 + 2  # the deadline and the tree's end, once
    assert len(caught.value.attempts) == 1
    assert all("timed out" in why.reason for why in caught.value.attempts)
    assert {why.kind for why in caught.value.attempts} == {FailureKind.TIMED_OUT}
    pids = [
        int(p)
        for line in (record_dir / "pids").read_text().split("\n")
        if line
        for p in line.split()
    ]
    assert len(pids) == 2  # one attempt: the agent and its grandchild
    time.sleep(0.2)
    assert [pid for pid in pids if alive(pid)] == []


def test_a_helper_in_its_own_session_holding_stdout_cannot_stretch_the_timeout(
    config: Config, tmp_path: Path, record_dir: Path
) -> None:
    """Before, the pipes were drained without a deadline: a 5 s call waited 609 s. The helper
    left the agent's group, yet it ends with the call (its supervisor's tree)."""
    config.agents.call_timeout_seconds = 1
    started = time.monotonic()
    try:
        with pytest.raises(AgentFailure) as caught:
            invoke_agent(config, "escaper", "x", _call(tmp_path))
        elapsed = time.monotonic() - started
    finally:
        helpers = [int(p) for p in (record_dir / "helpers").read_text().split()]
        left = [pid for pid in helpers if alive(pid)]
        for pid in left:
            os.kill(pid, 9)
    assert len(helpers) == 1  # a timed-out call is not retried
    assert left == [], "a helper in a session of its own outlived its call"
    assert all(why.kind is FailureKind.TIMED_OUT for why in caught.value.attempts)
    assert elapsed < 60, f"a 1 s call took {elapsed:.0f} s: the pipes were waited on"


def test_an_agent_that_exits_keeps_its_answer_though_a_child_holds_the_pipe(
    config: Config, tmp_path: Path, record_dir: Path
) -> None:
    assert invoke_agent(config, "lingerer", "x", _call(tmp_path)) == "the answer"
    (child,) = [int(p) for p in (record_dir / "lingering").read_text().split()]
    time.sleep(0.2)
    assert not alive(child), "the agent's process group is killed once it has answered"


def test_an_answer_over_the_size_cap_is_refused_and_the_agent_stopped(
    config: Config, tmp_path: Path
) -> None:
    config.agents.max_reply_bytes = 100_000
    with pytest.raises(AgentFailure, match="max_reply_bytes") as caught:
        invoke_agent(config, "flood", "x", _call(tmp_path))
    assert [why.kind for why in caught.value.attempts] == [FailureKind.TOO_LARGE] * 2


def _run_in_a_process(config_path: Path, project_dir: Path, agent: str, record_dir: Path) -> Any:
    return subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from pathlib import Path; from thoughtforge.config import load_config; "
            "from thoughtforge.adapters.agents import AgentCall, invoke_agent; "
            "invoke_agent(load_config(Path(sys.argv[1])), sys.argv[3], 'x', "
            "AgentCall(step='plan-review', project_dir=Path(sys.argv[2]), phase='polishing'))",
            str(config_path),
            str(project_dir),
            agent,
        ],
        env={**os.environ, "RECORD_DIR": str(record_dir)},
    )


@pytest.mark.parametrize("ending", [signal.SIGKILL, signal.SIGTERM])
def test_a_run_that_ends_leaves_no_process_of_its_agent_call_after_2_s(
    config: Config, tmp_path: Path, ending: signal.Signals
) -> None:
    """Before, the agent alone died with the run (setpriv --pdeathsig): its grandchild, and a
    helper in a session of its own, ran on. Now the call's supervisor ends its whole tree."""
    project = create_project(config, brain_dump="x")
    record_dir = project.dir / "record"  # the agent writes in its project only
    record_dir.mkdir()
    runner = _run_in_a_process(tmp_path / "config.yaml", project.dir, "escaper", record_dir)
    helpers = record_dir / "helpers"
    for _ in range(200):
        if helpers.exists() and helpers.read_text().strip():
            break
        time.sleep(0.05)
    [helper] = [int(p) for p in helpers.read_text().split()]
    [supervisor] = [int(p) for p in json.loads((project.dir / PROCESSES_FILE).read_text())]
    tree = [supervisor, *descendants([supervisor]), helper]
    assert len(tree) >= 4  # the supervisor, the agent, its sleep, the helper in its session
    os.kill(runner.pid, ending)  # SIGTERM with no graceful stop installed: the default action
    runner.wait()
    ended_at = time.monotonic()
    while any(alive(pid) for pid in tree) and time.monotonic() - ended_at < 2:
        time.sleep(0.05)
    try:
        assert [pid for pid in tree if alive(pid)] == [], "a process outlived its run by 2 s"
    finally:
        for pid in tree:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_the_next_run_ends_a_leftover_of_an_earlier_call_of_its_project(
    config: Config, tmp_path: Path
) -> None:
    """A helper no supervisor holds any longer (its supervisor was killed with it gone astray)
    is found by the project's mark in its environment when the next run takes the lock; a
    process of another project is left alone."""
    project = create_project(config, brain_dump="x")
    other = create_project(config, brain_dump="y")
    sleep = ["setsid", "sleep", "300"]
    leftover = subprocess.Popen(sleep, env={**os.environ, AGENT_MARK: str(project.dir)})
    stranger = subprocess.Popen(sleep, env={**os.environ, AGENT_MARK: str(other.dir)})
    try:
        with hold_run_lock(project):
            pass
        leftover.wait(timeout=5)
        assert leftover.returncode == -signal.SIGKILL
        assert stranger.poll() is None
        ended = [e for e in read_events(project.dir) if e["event"] == "leftover_processes_ended"]
        assert ended and leftover.pid in ended[-1]["pids"]
    finally:
        stranger.kill()
        leftover.kill()


def test_failure_then_success_returns_the_second_answer(
    config: Config, tmp_path: Path, record_dir: Path
) -> None:
    assert invoke_agent(config, "flaky", "x", _call(tmp_path)) == "second time lucky"
    attempts = [e for e in read_events(tmp_path) if e["event"] == "agent_call"]
    assert [e["failure"] for e in attempts] == ["exit code 7: transient failure", None]


def test_missing_command_and_empty_output_are_typed_failures(
    config: Config, tmp_path: Path
) -> None:
    config.agents.available["ghost"] = config.agent("demo").model_copy(
        update={"command": "no-such-agent-xyz"}
    )
    with pytest.raises(AgentFailure, match="not found on PATH"):
        invoke_agent(config, "ghost", "x", _call(tmp_path))
    config.agents.available["silent"] = config.agent("demo").model_copy(update={"command": "true"})
    with pytest.raises(AgentFailure, match="empty output") as caught:
        invoke_agent(config, "silent", "x", _call(tmp_path))
    assert caught.value.agent == "silent" and caught.value.step == "plan-review"


def test_claude_json_is_normalised_to_its_result() -> None:
    stdout = json.dumps({"type": "result", "is_error": False, "result": "  the answer \n"})
    assert normalise("claude_json", stdout) == "the answer"
    with pytest.raises(AgentOutputError, match="no string 'result'"):
        normalise("claude_json", '{"type": "result"}')
    with pytest.raises(AgentOutputError, match="reported an error"):
        normalise("claude_json", json.dumps({"is_error": True, "result": "rate limited"}))
    with pytest.raises(AgentOutputError, match="unparsable"):
        normalise("claude_json", "plain words")


def test_the_call_in_flight_and_its_output_so_far_are_readable_while_the_agent_works(
    config: Config, tmp_path: Path
) -> None:
    answer = invoke_agent(config, "streamer", "hi", _call(tmp_path))
    assert "seen step=plan-review attempt=1 stream='first line of the answer\\n'" in answer
    assert call_in_flight(tmp_path) is None  # the call ended: nothing left in flight
    assert not (tmp_path / STREAM_FILE).exists()


def test_a_flooding_agent_streams_no_more_than_the_cap(tmp_path: Path) -> None:
    begin_call(
        tmp_path,
        AgentActivity(agent="a", step="s", phase="p", attempt=1, started_at=utc_now()),
    )
    for _ in range(5):
        stream_output(tmp_path, b"x" * STREAM_CAP_BYTES)
    assert len(streamed_text(tmp_path)) == STREAM_CAP_BYTES
    assert call_in_flight(tmp_path) is not None
    end_call(tmp_path)
    assert call_in_flight(tmp_path) is None


def test_links_an_agent_planted_as_the_call_files_are_never_followed(
    config: Config, tmp_path: Path
) -> None:
    project_dir = tmp_path / "project"
    project_dir.mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("private key")
    (project_dir / STREAM_FILE).symlink_to(secret)
    (project_dir / ".agent_call.json").symlink_to(secret)
    assert streamed_text(project_dir) == "" and call_in_flight(project_dir) is None
    answer = invoke_agent(config, "streamer", "hi", _call(project_dir))
    assert "stream='first line of the answer\\n'" in answer
    assert secret.read_text() == "private key"  # never truncated or appended to


def test_a_call_from_a_worker_thread_completes_while_other_threads_come_and_go(
    config: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agent dies with the thread that starts it (PR_SET_PDEATHSIG, on its supervisor): that
    thread waits for it to its end, and threads that start and end meanwhile do not touch it."""
    script = tmp_path / "script.yaml"
    script.write_text(yaml.safe_dump({"steps": {"plan-review": {"text": "slow", "sleep": 1}}}))
    monkeypatch.setenv("THOUGHTFORGE_SCRIPT", str(script))
    answers: list[str] = []
    worker = threading.Thread(
        target=lambda: answers.append(invoke_agent(config, "demo", "x", _call(tmp_path)))
    )
    worker.start()
    for _ in range(5):
        passing = threading.Thread(target=time.sleep, args=(0.05,))
        passing.start()
        passing.join()
    worker.join(timeout=30)
    assert answers == ["slow"]
