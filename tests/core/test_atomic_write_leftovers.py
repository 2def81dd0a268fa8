"""What a writer killed with -9 mid-write leaves: the old file, whole, and a temporary file that
git ignores and no commit takes (before, `.acceptance_lock.json.<random>.tmp` was committed with
the agent's files in code mode)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from tests.conftest import REPO_ROOT
from thoughtforge.config import Config
from thoughtforge.core.creation import create_project
from thoughtforge.core.staging import commit_own
from thoughtforge.core.state import ACCEPTANCE_LOCK_FILE

WRITER = """
import os, sys, time
from pathlib import Path
from thoughtforge.core.atomic_write import write_text_atomic
def stuck(fd):
    print("writing", flush=True)
    time.sleep(120)
os.fsync = stuck  # the temporary file is written: the kill comes before the rename
write_text_atomic(Path(sys.argv[1]), '{"criteria": "new"}')
"""


def test_a_write_killed_midway_leaves_no_file_git_would_commit(config: Config) -> None:
    project = create_project(config, brain_dump="x")
    lock = project.dir / ACCEPTANCE_LOCK_FILE
    lock.write_text('{"criteria": "old"}')
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(lock)],
        stdout=subprocess.PIPE, text=True, cwd=REPO_ROOT,
    )  # fmt: skip
    assert writer.stdout is not None and writer.stdout.readline().strip() == "writing"
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait(timeout=30)
    time.sleep(0.1)
    leftovers = [p.name for p in project.dir.iterdir() if p.name.startswith(f".{lock.name}.")]
    assert leftovers, "the kill came before the temporary file was made"
    assert lock.read_text() == '{"criteria": "old"}'
    commit_own(project.dir, "the agent's files too", agent_files=True)
    listed = subprocess.run(
        ["git", "ls-files"], cwd=project.dir, capture_output=True, text=True, check=True
    ).stdout.split()
    assert not [name for name in listed if name in leftovers]
    ignored = subprocess.run(
        ["git", "check-ignore", *leftovers], cwd=project.dir, capture_output=True, text=True
    )
    assert ignored.returncode == 0, "a new project's .gitignore names the temporary files"
