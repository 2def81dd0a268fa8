"""ThoughtForge's write boundary on real processes: Landlock (this kernel offers it) holds a
command's writes, its children's included, to the folders named; without it, what a call wrote
beside its project is named after the call."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from thoughtforge.adapters.agents import write_boundary
from thoughtforge.adapters.agents.landlock import abi_version
from thoughtforge.adapters.agents.process import run_command
from thoughtforge.adapters.agents.write_boundary import open_boundary

ESCAPES = (
    "echo in > inside.txt; echo out > ../escape.txt; echo tmp > {tmp}; "
    "sh -c 'setsid sh -c \"echo child > ../escape-child.txt\"'; "
    "ln -s /etc/passwd ../link; mv inside.txt ../moved.txt; echo done"
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "projects" / "p1"
    folder.mkdir(parents=True)
    return folder


def test_a_held_command_and_what_it_starts_write_only_in_its_project(
    project: Path, tmp_path: Path
) -> None:
    """Before, nothing but each CLI's own sandbox held a write: this shell wrote everywhere."""
    assert abi_version() >= 1, "the test machine's kernel offers Landlock"
    under_tmp = Path(f"/tmp/thoughtforge-escape-{tmp_path.name}.txt")
    boundary = open_boundary(project, project_writable=True)
    try:
        result = run_command(
            ["sh", "-c", ESCAPES.format(tmp=under_tmp)],
            "",
            {**os.environ, **boundary.environment()},
            timeout=30,
            max_bytes=100_000,
            cwd=project,
            writable=boundary.writable,
        )
        escaped = sorted(p.name for p in project.parent.iterdir() if p != project)
        assert not under_tmp.exists(), "wrote under /tmp"
    finally:
        under_tmp.unlink(missing_ok=True)
        boundary.close()
    assert result.stdout == "done\n", result.stderr
    assert escaped == [], f"wrote beside the project: {escaped}"
    assert (project / "inside.txt").read_text() == "in\n"
    assert result.stderr.count("Permission denied") >= 3, result.stderr


def test_a_text_step_of_a_cli_leaves_its_project_read_only_and_its_scratch_writable(
    project: Path,
) -> None:
    boundary = open_boundary(project, project_writable=False)
    try:
        result = run_command(
            ["sh", "-c", 'echo x > "$TMPDIR/note"; cat "$TMPDIR/note"; echo y > inside.txt'],
            "",
            {**os.environ, **boundary.environment()},
            timeout=30,
            max_bytes=100_000,
            cwd=project,
            writable=boundary.writable,
        )
        assert boundary.scratch.is_dir() and str(boundary.scratch) != str(project)
    finally:
        boundary.close()
    assert result.stdout == "x\n"
    assert not (project / "inside.txt").exists()
    assert not boundary.scratch.exists(), "the scratch folder outlived its call"


def test_without_landlock_a_write_beside_the_project_is_named_after_the_call(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(write_boundary, "landlock_abi", lambda: 0)
    (project.parent / "other-project").mkdir()
    (project.parent / "other-project" / "status.json").write_text("{}")
    boundary = open_boundary(project, project_writable=True)
    assert boundary.writable is None
    (project.parent / "escape.txt").write_text("out")
    (project.parent / "other-project" / "changed").write_text("its own run")
    (project / "inside.txt").write_text("in")
    said = boundary.written_outside()
    boundary.close()
    assert said is not None and str(project.parent / "escape.txt") in said, said
    assert "other-project" not in said and "no Landlock" in said
