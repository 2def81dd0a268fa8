"""One git repository per project, driven through GitPython.

GitPython is imported on first use (it takes about 80 ms), so commands and agent processes that
never touch a repository do not pay for it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import git

AUTHOR_NAME = "ThoughtForge"
AUTHOR_EMAIL = "thoughtforge@localhost"


def init_repo(path: Path) -> git.Repo:
    """Create the repo with a local identity, so commits work where git has no global one."""
    import git

    repo = git.Repo.init(path, initial_branch="main")
    with repo.config_writer() as cfg:
        cfg.set_value("user", "name", AUTHOR_NAME)
        cfg.set_value("user", "email", AUTHOR_EMAIL)
    return repo


def commit_all(path: Path, message: str, *, allow_empty: bool = False) -> str | None:
    """Stage everything not ignored and commit; return the new sha, or None when nothing changed."""
    repo = _repo(path)
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
    repo = _repo(path)
    if not repo.head.is_valid():
        return []
    return [str(c.summary) for c in repo.iter_commits()]


def is_dirty(path: Path, relpath: str | None = None) -> bool:
    """Uncommitted changes (untracked files included), in the whole tree or in one path."""
    repo = _repo(path)
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
    return bool(_repo(path).git.log("-1", "--format=%H", "--", relpath).strip())


def _repo(path: Path) -> git.Repo:
    import git

    return git.Repo(path)
