"""The project's git repo: a lock left by a killed git never blocks the pipeline."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import git
import pytest

from thoughtforge.core import git_repo
from thoughtforge.core.project_log import read_events
from thoughtforge.errors import RepositoryTampered


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


def _plant_hook(repo_dir: Path, name: str, marker: Path) -> None:
    hook = repo_dir / ".git" / "hooks" / name
    hook.write_text(f"#!/bin/sh\necho {name} >> {marker}\n")
    hook.chmod(0o755)


def test_no_hook_or_file_system_monitor_runs_for_a_thoughtforge_git_call(tmp_path: Path) -> None:
    """Before, `--no-verify` skipped only pre-commit and commit-msg: post-commit,
    prepare-commit-msg, reference-transaction, post-index-change and core.fsmonitor all ran."""
    repo_dir, marker = tmp_path / "repo", tmp_path / "ran.txt"
    repo_dir.mkdir()
    git_repo.init_repo(repo_dir)
    (repo_dir / "a.md").write_text("a")
    git_repo.commit(repo_dir, "first")
    (repo_dir / "a.md").write_text("b")
    names = ("post-commit", "prepare-commit-msg", "reference-transaction", "post-index-change")
    for name in names:
        _plant_hook(repo_dir, name, marker)
    with pytest.raises(RepositoryTampered) as refused:
        git_repo.commit(repo_dir, "second")
    assert refused.value.found == [f".git/hooks/{name}" for name in sorted(names)]
    for name in names:
        (repo_dir / ".git" / "hooks" / name).unlink()
    with (repo_dir / ".git" / "config").open("a") as config:
        config.write(f"[core]\n\tfsmonitor = echo fsmonitor >> {marker} #\n")
    with pytest.raises(RepositoryTampered, match=r"\.git/config:core\.fsmonitor"):
        git_repo.changed_paths(repo_dir)
    assert not marker.exists()


def test_the_safe_options_hold_even_where_the_check_is_not_asked(tmp_path: Path) -> None:
    """The hooks a check would report are also switched off for the git process itself."""
    repo_dir, marker = tmp_path / "repo", tmp_path / "ran.txt"
    repo_dir.mkdir()
    git_repo.init_repo(repo_dir)
    repo = git_repo._repo(repo_dir)
    _plant_hook(repo_dir, "post-commit", marker)
    (repo_dir / "a.md").write_text("a")
    repo.git.add("a.md")
    repo.git.commit("-q", "-m", "through the cached repo")
    assert not marker.exists()


def test_threads_reading_one_repository_at_once_never_hang(tmp_path: Path) -> None:
    """Before, one `Repo` per project was shared by every thread: two of the page's requests at
    once (a double Start) read HEAD through the same `git cat-file` pipe, and one of them waited
    on it for ever."""
    git_repo.init_repo(tmp_path)
    (tmp_path / "a.md").write_text("a\n")
    git_repo.commit(tmp_path, "one", ["a.md"])
    failures: list[BaseException] = []

    def read() -> None:
        try:
            for _ in range(200):
                assert len(git_repo.log_records(tmp_path, "%H")) == 1
        except BaseException as exc:  # noqa: BLE001 - reported by the test below
            failures.append(exc)

    threads = [threading.Thread(target=read, daemon=True) for _ in range(4)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 60
    for thread in threads:
        thread.join(timeout=max(0.0, deadline - time.monotonic()))
    assert not any(thread.is_alive() for thread in threads), "a reader hung on git's pipe"
    assert failures == []
