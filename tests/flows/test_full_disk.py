"""A full disk and a read-only projects folder, on a real small file system: the state files
never corrupt, the project halts with `file_system_error`, and every command says what failed in
one line naming the path. Mounting needs root: elsewhere these tests skip, saying so."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import BRAIN_DUMP
from tests.flows.conftest import run_cli
from tests.small_disk import small_tmpfs
from thoughtforge.core.state import read_chat, read_status
from thoughtforge.models import HaltReason, Phase

pytestmark = pytest.mark.slow


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    with small_tmpfs(tmp_path, "4m") as disk:
        yield disk


def _project_on(disk: Path, env: dict[str, str], config: Path) -> Path:
    (disk / "bd.md").write_text(BRAIN_DUMP)
    created = run_cli(env, config, "new", "--brain-dump", str(disk / "bd.md"))
    assert created.returncode == 0, created.stderr
    [project] = (disk / "projects").iterdir()
    return project


def _fill(disk: Path, leave_bytes: int) -> None:
    """Fill the disk, then free `leave_bytes` of it."""
    filler = disk / "filler"
    subprocess.run(["dd", "if=/dev/zero", f"of={filler}", "bs=4k"], capture_output=True)
    os.truncate(filler, filler.stat().st_size - leave_bytes)


def test_a_run_on_a_full_disk_halts_with_file_system_error_and_one_line(
    small_disk: Path, cli_env: dict[str, str], cli_config: Callable[..., Path]
) -> None:
    """Before, with 120 KB free a run printed a ~60-line GitCommandError traceback and the
    project was not halted."""
    config = cli_config(projects={"directory": str(small_disk / "projects")})
    project = _project_on(small_disk, cli_env, config)
    _fill(small_disk, leave_bytes=100 * 1024)
    run = run_cli(cli_env, config, "continue", project.name, "--auto-confirm")
    output = run.stdout + run.stderr
    assert run.returncode == 3, output
    assert "Traceback" not in output
    status = read_status(project)
    assert (status.phase, status.halt_reason) == (Phase.HALTED, HaltReason.FILE_SYSTEM_ERROR)
    halt_line = next(m.content for m in reversed(read_chat(project)) if "Halted" in m.content)
    assert str(project) in halt_line
    assert "No space left on device" in halt_line or "Out of diskspace" in halt_line  # git's words
    assert len(halt_line.splitlines()) == 1
    fsck = subprocess.run(["git", "fsck"], cwd=project, capture_output=True, text=True)
    assert fsck.returncode == 0 and "error" not in fsck.stderr, fsck.stderr


def test_commands_on_a_read_only_projects_folder_say_so_in_one_line(
    small_disk: Path, cli_env: dict[str, str], cli_config: Callable[..., Path]
) -> None:
    """Before, `new`, `say` and `continue` gave raw OSError tracebacks."""
    config = cli_config(projects={"directory": str(small_disk / "projects")})
    project = _project_on(small_disk, cli_env, config)
    chat_before = (project / "chat_history.json").read_bytes()
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    for args in (
        ("new", "--brain-dump", str(small_disk / "bd.md")),
        ("say", project.name, "One more thing."),
        ("continue", project.name),
    ):
        result = run_cli(cli_env, config, *args)
        assert result.returncode == 1, (args, result.stdout, result.stderr)
        [line] = [line for line in result.stderr.splitlines() if line.startswith("error:")]
        assert str(small_disk / "projects") in line and "Read-only file system" in line
        assert "Traceback" not in result.stdout + result.stderr
    assert (project / "chat_history.json").read_bytes() == chat_before
