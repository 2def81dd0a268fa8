"""Recorded processes, ended by whoever comes next: all of them, or only some first."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from thoughtforge.core.processes import end_leftover_processes, live_processes, track_process


def _sleeper() -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(300)"], start_new_session=True
    )


def test_only_the_chosen_groups_end_and_the_others_stay_recorded(tmp_path: Path) -> None:
    first, second = _sleeper(), _sleeper()
    try:
        for process in (first, second):
            track_process(tmp_path, process.pid)
        assert end_leftover_processes(tmp_path, only=[first.pid]) == [first.pid]
        assert first.wait(timeout=30) != 0
        assert second.poll() is None
        assert live_processes(tmp_path) == [second.pid]
        assert end_leftover_processes(tmp_path) == [second.pid]
        assert second.wait(timeout=30) != 0
        assert live_processes(tmp_path) == []
    finally:
        for process in (first, second):
            process.kill()
            process.wait()
