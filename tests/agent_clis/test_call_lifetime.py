"""An agent call dies with ThoughtForge, whole: `thoughtforge run` killed with -9 while each real
CLI is in a call leaves none of the call's processes after 2 s (Codex's native binary under its
node launcher, Gemini CLI's relaunched `node --max-old-space-size=…` child included)."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest

from tests.agent_clis.conftest import CLIS, Bench, cli_env
from tests.agent_clis.test_real_clis import CODE_BRAIN_DUMP
from tests.flows.conftest import start_cli
from tests.process_checks import alive
from thoughtforge.core.processes import AGENT_MARK, PROCESSES_FILE
from thoughtforge.process_tree import carrying, descendants

pytestmark = pytest.mark.slow

OUTLIVES_AT_MOST = 2.0


def _wait_for(condition: object, what: str, seconds: float = 240) -> None:
    deadline = time.monotonic() + seconds
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def _command_line(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "?"
    return " ".join(part.decode(errors="replace") for part in raw.split(b"\0") if part)[:120]


@pytest.mark.parametrize("cli", CLIS)
def test_a_run_killed_with_9_leaves_no_process_of_its_call_after_2_s(
    cli: str, bench: Bench
) -> None:
    """Before, the parent-death signal reached only the process ThoughtForge started: Codex's
    native binary and Gemini CLI's relaunched child ran on, and billed a call never recorded."""
    bench.api.stall_step = "code-build"  # the call stays in flight until the test ends
    (bench.tmp_path / "brain-dump.md").write_text(CODE_BRAIN_DUMP)
    env = cli_env(bench.tmp_path / "home", cli, bench.api, bench.prefect_api_url)
    run = start_cli(
        env, bench.config(cli), "run", str(bench.tmp_path / "brain-dump.md"), "--auto-confirm"
    )
    tree: list[int] = []
    try:
        _wait_for(lambda: "code-build" in bench.api.steps() or run.poll() is not None, "a build")
        assert run.poll() is None, run.stdout.read() if run.stdout else ""
        [project] = [p for p in (bench.tmp_path / "projects").iterdir() if p.is_dir()]
        [supervisor] = [int(pid) for pid in json.loads((project / PROCESSES_FILE).read_text())]
        tree.extend([supervisor, *descendants([supervisor])])
        print(f"\n{cli}'s call, as a tree below its supervisor:")
        for pid in tree:
            print(f"  {pid} {_command_line(pid)}")
        assert len(tree) >= 2, "the supervisor and the CLI (and what it started)"
        run.send_signal(signal.SIGKILL)  # ThoughtForge alone, as the OOM killer would
        run.wait()
        ended = time.monotonic()
        marked = lambda: carrying(AGENT_MARK, str(project))  # noqa: E731
        while (any(alive(p) for p in tree) or marked()) and time.monotonic() - ended < 5:
            time.sleep(0.05)
        took = time.monotonic() - ended
        left = [f"{pid} {_command_line(pid)}" for pid in {*tree, *marked()} if alive(pid)]
        assert left == [] and took <= OUTLIVES_AT_MOST, f"{took:.1f} s after the kill: {left}"
    finally:
        if run.poll() is None:
            run.kill()
        for pid in tree:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
