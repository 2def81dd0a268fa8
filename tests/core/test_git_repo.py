"""The project's git repo: a lock left by a killed git never blocks the pipeline."""

from __future__ import annotations

from pathlib import Path

import git

from thoughtforge.core import git_repo, read_events


def test_a_stale_index_lock_is_removed_and_the_commit_goes_through(tmp_path: Path) -> None:
    """Before, only the polish loop and the builder cleared it: Phases 1–2 were blocked forever."""
    git_repo.init_repo(tmp_path)
    (tmp_path / "a.md").write_text("a")
    lock = tmp_path / ".git" / "index.lock"
    lock.write_text("")
    assert git_repo.commit(tmp_path, "first") is not None
    assert not lock.exists()
    assert [c.summary for c in git.Repo(tmp_path).iter_commits()] == ["first"]
    assert [e["event"] for e in read_events(tmp_path)] == ["stale_git_lock_removed"]


def test_only_the_paths_given_are_staged(tmp_path: Path) -> None:
    git_repo.init_repo(tmp_path)
    (tmp_path / "mine.md").write_text("m")
    (tmp_path / "theirs.py").write_text("t")
    git_repo.commit(tmp_path, "mine only", ["mine.md"])
    assert git_repo.changed_paths(tmp_path) == ["theirs.py"]
