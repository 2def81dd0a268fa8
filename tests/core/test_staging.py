"""What a commit takes and what undoing a failed coding attempt keeps, in a real project repo."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import BRAIN_DUMP
from thoughtforge.config import Config
from thoughtforge.core import git_repo
from thoughtforge.core.creation import create_project
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import log_event, read_events
from thoughtforge.core.staging import commit_own, discard_agent_changes


def _tracked(project_dir: Path) -> list[str]:
    return git_repo._repo(project_dir).git.ls_files().splitlines()


def test_code_mode_commits_the_agents_files_but_never_private_or_ignored_ones(
    config: Config,
) -> None:
    project = create_project(config, brain_dump=BRAIN_DUMP)
    (project.dir / "app.py").write_text("print('hi')\n")
    (project.dir / "__pycache__").mkdir()
    (project.dir / "__pycache__" / "app.cpython-311.pyc").write_bytes(b"\0")
    log_event(project.dir, "something")

    plan_mode = commit_own(project.dir, "plan mode")
    assert plan_mode.foreign == ["app.py"] and "app.py" not in _tracked(project.dir)

    commit_own(project.dir, "code mode", agent_files=True)
    tracked = _tracked(project.dir)
    assert "app.py" in tracked
    assert not [p for p in tracked if "__pycache__" in p or p == "thoughtforge.log"]


def _with_app_committed(config: Config) -> Project:
    project = create_project(config, brain_dump=BRAIN_DUMP)
    (project.dir / "app.py").write_text("v1\n")
    commit_own(project.dir, "step 1", agent_files=True)
    return project


def test_undoing_an_attempt_keeps_thoughtforges_files_even_under_an_agents_gitignore(
    config: Config,
) -> None:
    project = _with_app_committed(config)
    log_event(project.dir, "before the attempt")
    status_before = (project.dir / "status.json").read_text()
    (project.dir / "status.json").write_text(status_before.replace("brain_dump", "building"))
    (project.dir / "resources" / "notes.md").write_text("the human's new notes\n")
    # the attempt: edits, a new file, and a .gitignore of its own that forgets ThoughtForge's
    (project.dir / "app.py").write_text("v2 half written")
    (project.dir / "half.py").write_text("x =")
    (project.dir / ".gitignore").write_text("*.tmp\n")

    discarded = discard_agent_changes(project.dir)

    assert sorted(discarded) == ["app.py", "half.py"]
    assert (project.dir / "app.py").read_text() == "v1\n"
    assert not (project.dir / "half.py").exists()
    assert "building" in (project.dir / "status.json").read_text()
    assert (project.dir / "resources" / "notes.md").read_text() == "the human's new notes\n"
    assert (project.dir / "thoughtforge.log").exists()
    assert (project.dir / ".gitignore").read_text() == "*.tmp\n"  # its own file: kept as is


def test_a_file_still_being_uploaded_is_never_committed_but_the_finished_one_is(
    config: Config,
) -> None:
    project = create_project(config, brain_dump=BRAIN_DUMP)
    part = project.dir / "resources" / ".upload-x1y2.part"
    part.write_bytes(b"the first 4 MB of 300")  # a server killed mid-upload left this
    (project.dir / "resources" / "agenda.md").write_text("whole\n")

    found = commit_own(project.dir, "resources")

    tracked = _tracked(project.dir)
    assert "resources/agenda.md" in tracked and "resources/.upload-x1y2.part" not in tracked
    assert "resources/.upload-x1y2.part" not in found.own + found.foreign


def test_undoing_an_attempt_stashes_an_edit_of_a_tracked_file_and_logs_where(
    config: Config,
) -> None:
    project = _with_app_committed(config)
    (project.dir / "app.py").write_text("v1\n# the person's fix, typed during the attempt\n")

    discard_agent_changes(project.dir)

    assert (project.dir / "app.py").read_text() == "v1\n"
    [stashed] = [e for e in read_events(project.dir) if e["event"] == "uncommitted_edits_stashed"]
    assert stashed["files"] == ["app.py"]
    kept = git_repo._repo(project.dir).git.show(f"{stashed['stash']}:app.py")
    assert "the person's fix" in kept
    assert "stash@{0}" in git_repo._repo(project.dir).git.stash("list")
