from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.core.test_run_lock import HOLDER
from thoughtforge.config import Config
from thoughtforge.core.creation import create_project
from thoughtforge.core.orphans import halt_orphaned_projects
from thoughtforge.core.state import read_status, write_status
from thoughtforge.models import HaltReason, Phase


def _in(project_dir: Path, phase: Phase) -> None:
    write_status(project_dir, read_status(project_dir).model_copy(update={"phase": phase}))


def test_only_autonomous_projects_without_a_live_run_are_halted(config: Config) -> None:
    config.concurrency.max_parallel_runs = 10
    projects = {
        phase: create_project(config)
        for phase in (
            Phase.BRAIN_DUMP,
            Phase.HUMAN_REVIEW,
            Phase.SPEC_BUILDING,
            Phase.DISTILLING,
            Phase.BUILDING,
            Phase.POLISHING,
        )
    }
    for phase, project in projects.items():
        _in(project.dir, phase)
    live = create_project(config)
    _in(live.dir, Phase.POLISHING)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, live.id, str(live.dir)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        halted = halt_orphaned_projects(config)
    finally:
        holder.kill()
        holder.wait()
    assert sorted(halted) == sorted(
        projects[p].id for p in (Phase.DISTILLING, Phase.BUILDING, Phase.POLISHING)
    )
    for phase, project in projects.items():
        status = read_status(project.dir)
        if phase in (Phase.DISTILLING, Phase.BUILDING, Phase.POLISHING):
            assert (status.phase, status.halt_reason, status.halted_from) == (
                Phase.HALTED,
                HaltReason.SERVER_RESTART,
                phase,
            )
        else:
            assert status.phase is phase
    assert read_status(live.dir).phase is Phase.POLISHING
