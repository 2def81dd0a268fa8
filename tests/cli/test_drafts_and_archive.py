"""`confirm --edit` (an $EDITOR that is a small script), `edit --from FILE`, `archive` and
`unarchive` as a user runs them: a real process, real files, exit codes and messages."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import BRAIN_DUMP, REPO_ROOT
from tests.phases.conftest import distillation, under_review
from thoughtforge.config import Config
from thoughtforge.core.archive import archive
from thoughtforge.core.creation import create_project
from thoughtforge.core.project import Project
from thoughtforge.core.state import read_chat, read_status, write_status
from thoughtforge.models import Phase


def _run(tmp_path: Path, *args: str, editor: str = "") -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "COLUMNS": "200"}
    env["PYTHONPATH"] = str(REPO_ROOT)
    if editor:
        env["EDITOR"] = editor
    return subprocess.run(
        [sys.executable, "-m", "thoughtforge", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
    )


@pytest.fixture
def reviewed(config: Config) -> Project:
    """A distillation waiting for Confirm, and no run (the config is ./config.yaml)."""
    return under_review(config)


def _editor(tmp_path: Path, command: str) -> str:
    script = tmp_path / "editor.sh"
    script.write_text(f'#!/bin/sh\n{command} "$1"\n')
    script.chmod(0o755)
    return str(script)


def test_confirm_edit_saves_the_edit_then_confirms_as_confirm_does(
    reviewed: Project, tmp_path: Path
) -> None:
    editor = _editor(tmp_path, "sed -i 's/for 60 guests/for 80 guests/'")
    result = _run(tmp_path, "confirm", reviewed.id, "--edit", editor=editor)
    assert "Saved your edit as the distillation." in result.stdout
    # No run waits (none was started): the edit stays the draft a later Confirm locks.
    assert result.returncode == 1
    assert f"Next: thoughtforge say|continue {reviewed.id}" in result.stderr
    last = read_chat(reviewed.dir)[-1]
    assert last.edited and "for 80 guests" in last.content


def test_a_refused_edit_is_kept_in_rejected_and_says_how_to_try_again(
    reviewed: Project, tmp_path: Path
) -> None:
    editor = _editor(tmp_path, "sed -i '/^## Objective/d'")
    result = _run(tmp_path, "confirm", reviewed.id, "--edit", editor=editor)
    assert result.returncode == 1 and "## Objective" in result.stderr
    [kept] = (reviewed.dir / "rejected").glob("*-draft-edit.md")
    assert "Plan a small countryside wedding" in kept.read_text()
    assert f"--from {kept}" in " ".join(result.stderr.split())
    assert len(read_chat(reviewed.dir)) == 2  # nothing saved

    fixed = tmp_path / "fixed.md"
    fixed.write_text(distillation(objective="A wedding for 80 guests in May."))
    saved = _run(tmp_path, "edit", reviewed.id, "--from", str(fixed))
    assert saved.returncode == 0 and "Saved your edit" in saved.stdout
    assert read_chat(reviewed.dir)[-1].content.count("80 guests in May") == 1


def test_archive_and_unarchive_a_finished_project(tmp_path: Path, config: Config) -> None:
    done, working = (create_project(config, brain_dump=BRAIN_DUMP) for _ in range(2))
    write_status(done.dir, read_status(done.dir).model_copy(update={"phase": Phase.DONE}))

    archived = _run(tmp_path, "archive", done.id)
    assert archived.returncode == 0 and "archived" in archived.stdout
    refused = _run(tmp_path, "archive", working.id)
    assert refused.returncode == 1 and "in progress (brain_dump)" in refused.stderr
    assert _run(tmp_path, "unarchive", done.id).returncode == 0
    assert read_status(done.dir).archived_at is None


def test_status_marks_an_archived_project(config: Config) -> None:
    from thoughtforge.cli.status_report import project_table

    project = create_project(config, brain_dump=BRAIN_DUMP)
    write_status(project.dir, read_status(project.dir).model_copy(update={"phase": Phase.DONE}))
    archive(project)
    table, _ = project_table(config)
    assert ("done, archived", "dim") in table.rows[0]
