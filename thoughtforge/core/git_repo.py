"""One git repository per project, driven through GitPython."""

from __future__ import annotations

from pathlib import Path

import git

from thoughtforge.errors import PhaseHalt
from thoughtforge.models import HaltReason

AUTHOR_NAME = "ThoughtForge"
AUTHOR_EMAIL = "thoughtforge@localhost"


def init_repo(path: Path) -> git.Repo:
    """Create the repo with a local identity, so commits work where git has no global one."""
    repo = git.Repo.init(path, initial_branch="main")
    with repo.config_writer() as cfg:
        cfg.set_value("user", "name", AUTHOR_NAME)
        cfg.set_value("user", "email", AUTHOR_EMAIL)
    return repo


def commit_all(path: Path, message: str, *, allow_empty: bool = False) -> str | None:
    """Stage everything not ignored and commit; return the new sha, or None when nothing changed."""
    repo = git.Repo(path)
    repo.git.add(A=True)
    if (
        not allow_empty
        and repo.head.is_valid()
        and not repo.is_dirty(index=True, untracked_files=False)
    ):
        return None
    repo.git.commit("--allow-empty", "--no-verify", "-m", message)
    return repo.head.commit.hexsha


def commit_messages(path: Path) -> list[str]:
    """Subjects of all commits, newest first."""
    repo = git.Repo(path)
    if not repo.head.is_valid():
        return []
    return [str(c.summary) for c in repo.iter_commits()]


def is_dirty(path: Path, relpath: str | None = None) -> bool:
    """Uncommitted changes (untracked files included), in the whole tree or in one path."""
    repo = git.Repo(path)
    paths = [relpath] if relpath else []
    return bool(repo.git.status("--porcelain", "--", *paths).strip())


def remove_stale_lock(path: Path) -> bool:
    """A kill during `git commit` leaves `index.lock`; one run per project means it is stale."""
    lock = path / ".git" / "index.lock"
    if not lock.exists():
        return False
    lock.unlink()
    return True


def ever_committed(path: Path, relpath: str) -> bool:
    """Whether any commit ever held `relpath`: a state file that was recorded must not vanish."""
    return bool(git.Repo(path).git.log("-1", "--format=%H", "--", relpath).strip())


def commit_or_halt(path: Path, subject: str) -> None:
    """For the phase engines: a commit that fails, for any reason, halts with file_system_error."""
    try:
        commit_all(path, subject)
    except Exception as exc:  # noqa: BLE001 - any git failure is a file-system halt
        raise PhaseHalt(
            HaltReason.FILE_SYSTEM_ERROR, f"git commit failed ({subject}): {exc}"
        ) from None
