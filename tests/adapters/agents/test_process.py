"""`run_command` on real processes: where it runs, and what it keeps of each stream."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from thoughtforge.adapters.agents.process import run_command

ENV = dict(os.environ)


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_a_flood_on_stderr_keeps_only_its_end_and_the_answer_stands() -> None:
    flood = (
        "import sys; sys.stdin.read()\n"
        "for _ in range(300): sys.stderr.write('e' * 100_000)\n"
        "sys.stderr.write('LAST'); print('the answer')"
    )
    result = run_command(python(flood), "prompt", ENV, timeout=60, max_bytes=1_000_000)
    assert result.returncode == 0 and not result.too_large
    assert result.stdout == "the answer\n"
    assert len(result.stderr) == 1_000_000 and result.stderr.endswith("LAST")


def test_cwd_runs_the_command_in_that_folder(tmp_path: Path) -> None:
    result = run_command(
        python("import os; print(os.getcwd())"), "", ENV, timeout=30, max_bytes=1000, cwd=tmp_path
    )
    assert result.stdout.strip() == str(tmp_path)


def test_merge_stderr_reads_both_streams_in_the_order_written() -> None:
    code = (
        "import sys\n"
        "for n in range(3):\n"
        "    print(f'out {n}', flush=True); print(f'err {n}', file=sys.stderr, flush=True)"
    )
    result = run_command(python(code), "", ENV, timeout=30, max_bytes=1000, merge_stderr=True)
    assert result.stdout.splitlines() == ["out 0", "err 0", "out 1", "err 1", "out 2", "err 2"]
    assert result.stderr == ""


def test_a_command_that_cannot_start_raises_what_starting_it_raises(tmp_path: Path) -> None:
    """Started through its supervisor, a command that cannot be executed is still the `OSError`
    Popen raises (the agent layer says 'could not start', a full disk halts), not an exit code."""
    with pytest.raises(FileNotFoundError):
        run_command([str(tmp_path / "missing")], "", ENV, timeout=30, max_bytes=1000)
    not_executable = tmp_path / "agent.sh"
    not_executable.write_text("#!/bin/sh\necho hi\n")
    with pytest.raises(PermissionError):
        run_command([str(not_executable)], "", ENV, timeout=30, max_bytes=1000)


def test_an_agent_that_closes_its_outputs_before_it_exits_is_not_killed() -> None:
    """coreutils' `cat` closes stdout and stderr at exit, a moment before it ends: its answer
    is whole and its exit code 0, never the -9 of the group's kill that reaps helpers."""
    closes_first = (
        "import os, sys, time; sys.stdout.write('the answer'); sys.stdout.flush()\n"
        "os.close(1); os.close(2); time.sleep(0.4)"
    )
    result = run_command(python(closes_first), "", ENV, timeout=30, max_bytes=1000)
    assert (result.returncode, result.stdout, result.timed_out) == (0, "the answer", False)


def test_an_agent_that_closes_its_outputs_and_never_exits_is_killed_after_its_grace() -> None:
    hangs = "import os, time; os.close(1); os.close(2); time.sleep(60)"
    result = run_command(python(hangs), "", ENV, timeout=30, max_bytes=1000)
    assert result.returncode == -9 and not result.timed_out
