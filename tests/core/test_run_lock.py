from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import threading
import time

import pytest

from thoughtforge.config import Config
from thoughtforge.core.creation import create_project
from thoughtforge.core.project import Project
from thoughtforge.core.run_lock import LOCK_FILE, hold_run_lock, is_running
from thoughtforge.errors import ProjectError

HOLDER = """
import sys, time
from pathlib import Path
from thoughtforge.core.project import Project
from thoughtforge.core.run_lock import hold_run_lock
project = Project(id=sys.argv[1], dir=Path(sys.argv[2]))
with hold_run_lock(project):
    print("held", flush=True)
    time.sleep(60)
"""


@pytest.fixture
def project(config: Config) -> Project:
    return create_project(config)


def test_a_live_holder_is_seen_and_a_killed_one_is_not(project: Project) -> None:
    assert not is_running(project)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, project.id, str(project.dir)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert is_running(project)
        refused = pytest.raises(ProjectError, match=f"already being run \\(pid {holder.pid}\\)")
        with refused, hold_run_lock(project):
            pass
    finally:
        holder.kill()
        holder.wait()
    time.sleep(0.1)
    assert not is_running(project)


def test_the_lock_is_re_entrant_in_one_process(project: Project) -> None:
    with hold_run_lock(project), hold_run_lock(project):
        assert (project.dir / ".run.lock").read_text() == f"pid {__import__('os').getpid()}"
    assert not is_running(project)


def test_a_run_starting_while_someone_looks_waits_for_the_look_instead_of_refusing(
    project: Project,
) -> None:
    """`is_running` takes the lock for an instant; a run starting then must not refuse itself."""
    looker = (project.dir / LOCK_FILE).open("a+")
    fcntl.flock(looker, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a look in progress
    threading.Timer(0.1, lambda: fcntl.flock(looker, fcntl.LOCK_UN)).start()
    try:
        with hold_run_lock(project):  # refused with ProjectError before the fix
            assert (project.dir / LOCK_FILE).read_text() == f"pid {os.getpid()}"
    finally:
        looker.close()
