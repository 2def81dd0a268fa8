"""A polish iteration whose writes fail (the disk fills, or the folder turns read-only, right
after the fixer answers), on a real small file system: the project halts `file_system_error`
where a halt can be written, its state and tracker stay as the last commit has them, and where
not even the halt can be written, the project says so at every later look. Mounting needs root:
elsewhere these tests skip, saying so.

Before: the failed write left the project `polishing` with no halt, `polish_state.json` one
iteration ahead of its tracker, and the next run went on as if nothing had happened.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.polish_setup import polishing_project, review, write_script
from tests.small_disk import small_tmpfs
from thoughtforge.config import Config, load_config
from thoughtforge.core import git_repo
from thoughtforge.core.project_view import RunPlace, read_view
from thoughtforge.core.state import POLISH_STATE_FILE, read_status
from thoughtforge.errors import ProjectFileError
from thoughtforge.models import HaltReason, Phase
from thoughtforge.phases.polish.finding_tracker import TRACKER_FILE
from thoughtforge.phases.polish.loop import PolishLoop

WRAPPER = """#!/bin/sh
# The scripted agent, then (after the fixer answered) the disk breaks as the test asks.
answer=$({scripted} "$@")
status=$?
if [ "$THOUGHTFORGE_STEP" = plan-fix ] && [ "$THOUGHTFORGE_ITERATION" = 2 ]; then
  {break_disk}
fi
printf '%s' "$answer"
exit $status
"""
FILL = 'dd if=/dev/zero of="$THOUGHTFORGE_PROJECT_DIR/.filler" bs=4k >/dev/null 2>&1'
"""Filled from inside the project: the write boundary lets an agent write nowhere else."""
FILL_PAST_THE_RESERVE = (
    f'{FILL}; rm "$THOUGHTFORGE_PROJECT_DIR/.space-reserve"; '
    'dd if=/dev/zero of="$THOUGHTFORGE_PROJECT_DIR/.filler2" bs=4k >/dev/null 2>&1'
)
"""A disk so full that even the room kept for a halt is gone (say, none could be made when the
run started)."""
READ_ONLY = 'mount -o remount,ro "{disk}"'


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    with small_tmpfs(tmp_path, "8m") as disk:
        yield disk


def _breaking_config(
    tmp_path: Path, disk: Path, write_config: Callable[..., Path], break_disk: str
) -> Config:
    agent = tmp_path / "breaking_agent.sh"
    scripted = Path(sys.executable).parent / "thoughtforge-scripted-agent"
    wrapper = WRAPPER.replace("{scripted}", str(scripted))
    agent.write_text(wrapper.replace("{break_disk}", break_disk.format(disk=disk)))
    agent.chmod(agent.stat().st_mode | stat.S_IXUSR)
    projects = {"directory": str(disk / "projects")}
    agents = {"default": "breaker", "available": {"breaker": {"command": str(agent)}}}
    return load_config(write_config(projects=projects, agents=agents))


@pytest.mark.parametrize(
    "break_disk",
    [
        FILL,
        FILL_PAST_THE_RESERVE,
        pytest.param(
            READ_ONLY,
            marks=pytest.mark.xfail(
                strict=True,
                reason="the write boundary (Landlock) refuses the agent's remount, so this way "
                "of turning the folder read-only mid-fix no longer happens; it needs another",
            ),
        ),
    ],
    ids=["full", "full_past_the_reserve", "read_only"],
)
def test_a_write_that_fails_mid_iteration_halts_and_loses_nothing(
    tmp_path: Path,
    small_disk: Path,
    write_config: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
    break_disk: str,
) -> None:
    # every review repeats the same findings: no guard has a reason to stop the loop before
    # iteration 2's fix, where the disk breaks
    reviews = {1: review(2, 4, 6), "default": review(2, 4, 6)}
    monkeypatch.setenv("THOUGHTFORGE_SCRIPT", str(write_script(tmp_path / "s.yaml", reviews)))
    config = _breaking_config(tmp_path, small_disk, write_config, break_disk)
    project = polishing_project(config)
    try:
        outcome = PolishLoop(project, config).run()
    except ProjectFileError as exc:  # not even the halt could be written: it says so
        assert break_disk != FILL and "the halt could not be recorded" in str(exc)
    else:
        assert (outcome.verdict, outcome.halt_reason) == (
            "halt",
            HaltReason.FILE_SYSTEM_ERROR,
        ), outcome.reason
    committed = git_repo.file_at(project.dir, "HEAD", POLISH_STATE_FILE)
    assert committed is not None and '"iteration": 1' in committed
    for name in (POLISH_STATE_FILE, TRACKER_FILE):  # as iteration 1 left them: nothing half-made
        committed = git_repo.file_at(project.dir, "HEAD", name) or ""
        assert (project.dir / name).read_text().rstrip() == committed.rstrip()
    status = read_status(project.dir)
    view = read_view(project)
    if status.phase is Phase.HALTED:  # the halt is written (the reserve is kept for it)
        assert status.halt_reason is HaltReason.FILE_SYSTEM_ERROR and view.run is RunPlace.HALTED
    else:  # nothing can be written: every look says so
        assert break_disk != FILL and status.phase is Phase.POLISHING
        assert view.stranded is not None and "stopped without recording a halt" in view.stranded
    assert not [p for p in project.dir.iterdir() if p.name.endswith(".thoughtforge-tmp")]


def test_reading_a_projects_git_state_on_a_full_disk_writes_nothing(
    small_disk: Path, write_config: Callable[..., Path]
) -> None:
    """Before, `status` on a full disk failed with git's "index.lock write error": a read of
    the repository's state rewrote its index."""
    config = load_config(write_config(projects={"directory": str(small_disk / "projects")}))
    project = polishing_project(config)
    os.utime(project.dir / "docs" / "plan.md", (1, 1))  # stale in the index: git would refresh
    (project.dir / ".space-reserve").unlink()
    subprocess.run(["dd", "if=/dev/zero", f"of={small_disk / 'filler'}", "bs=4k"], check=False,
                   capture_output=True)  # fmt: skip
    assert git_repo.changed_paths(project.dir) == []
    assert read_view(project).status.phase is Phase.POLISHING
