"""One git repository per project, driven through GitPython.

GitPython is imported on first use (bench/bench_import_costs.py measures it), so commands and agent
processes that never touch a repository do not pay for it. A commit first clears an `index.lock`
that a killed git left behind, but only when no git process is working in the repository.

An agent that can write files can write into `.git/`, and git runs what `.git/` names: hooks, a
file-system monitor, filter drivers, a signing program. So every git call here runs with hooks and
the monitor off (`SAFE_OPTIONS`), and none runs at all in a repository whose `.git/` holds a hook
or a config key ThoughtForge did not put there (`RepositoryTampered`, naming them).
"""

from __future__ import annotations

import functools
import os
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Concatenate, ParamSpec, TypeVar

from thoughtforge.core.project_log import log_event
from thoughtforge.errors import ProjectFileError, RepositoryTampered, ThoughtForgeError

if TYPE_CHECKING:
    import git

AUTHOR_NAME = "ThoughtForge"
AUTHOR_EMAIL = "thoughtforge@localhost"
LOCK_WAIT_SECONDS = 10.0
SAFE_CONFIG = ("core.hooksPath=/dev/null", "core.fsmonitor=false", "commit.gpgSign=false")
"""Given to every git process ThoughtForge starts: no hook, monitor or signer runs for it."""
DIFF_ATTRIBUTES = Path(__file__).with_name("diff.gitattributes")
SAFE_OPTIONS = tuple(part for setting in SAFE_CONFIG for part in ("-c", setting))
OWN_CONFIG_KEYS = frozenset(
    {
        *("core.repositoryformatversion", "core.filemode", "core.bare", "core.logallrefupdates"),
        *("core.ignorecase", "core.precomposeunicode", "core.symlinks"),
        *("user.name", "user.email"),
    }
)
"""What `git init` and `init_repo` write into `.git/config`; none of it makes git run anything."""


P = ParamSpec("P")
R = TypeVar("R")


def _one_line_errors(
    operation: Callable[Concatenate[Path, P], R],
) -> Callable[Concatenate[Path, P], R]:
    """A git command that fails (a full disk, a read-only folder) becomes `ProjectFileError`:
    one line naming the repository and git's own last word, instead of GitPython's report."""

    @functools.wraps(operation)
    def run(path: Path, /, *args: P.args, **kwargs: P.kwargs) -> R:
        import git

        try:
            return operation(path, *args, **kwargs)
        except git.GitCommandError as exc:
            said = [line.strip(" '") for line in str(exc.stderr).splitlines() if line.strip(" '")]
            why = said[-1].removeprefix("stderr: ").strip(" '") if said else f"status {exc.status}"
            raise ProjectFileError(path, f"git failed: {why}") from None

    return run


@_one_line_errors
def init_repo(path: Path) -> git.Repo:
    """Create the repo with a local identity, so commits work where git has no global one."""
    import git

    repo = git.Repo.init(path, initial_branch="main")
    with repo.config_writer() as cfg:
        cfg.set_value("user", "name", AUTHOR_NAME)
        cfg.set_value("user", "email", AUTHOR_EMAIL)
    return repo


@_one_line_errors
def commit(path: Path, message: str, paths: Sequence[str] | None = None) -> bool:
    """Stage `paths` (every change when None) and commit; False when nothing changed.

    Three git processes: add, a quiet diff of the index, commit (with automatic maintenance off:
    a polish iteration commits twice, and `maintenance run --auto` after each costs as much as
    the commit itself).
    """
    clear_stale_lock(path)
    git_cmd = _repo(path).git
    if paths is None:
        git_cmd.add(A=True)
    elif paths:
        git_cmd.add("-A", "--", *paths)
    if (
        git_cmd.diff("--cached", "--quiet", with_extended_output=True, with_exceptions=False)[0]
        == 0
    ):
        return False
    git_cmd.execute(
        [
            "git",
            *SAFE_OPTIONS,
            "-c",
            "maintenance.auto=false",
            "-c",
            "gc.auto=0",
            "commit",
            "--no-verify",
            "-q",
            "-m",
            message,
        ]
    )
    return True


@_one_line_errors
def reset_hard(path: Path, keep: Sequence[str] = ()) -> None:
    """The work tree as HEAD has it: changes undone, untracked files removed, except ignored
    ones and those matching the `keep` patterns (which hold even if `.gitignore` is replaced)."""
    clear_stale_lock(path)
    git_cmd = _repo(path).git
    git_cmd.reset("--hard", "-q")
    git_cmd.clean("-fdq", *(f"--exclude={pattern}" for pattern in keep))


@_one_line_errors
def tag(path: Path, name: str) -> None:
    """Point `name` at HEAD (moving it if it exists)."""
    _repo(path).create_tag(name, force=True)


@_one_line_errors
def changed_since(path: Path, ref: str, relpaths: Sequence[str]) -> list[str] | None:
    """Which of `relpaths` differ in the work tree from `ref` (committed or not); None when `ref`
    does not exist."""
    import git

    repo = _repo(path)
    try:
        repo.rev_parse(ref)
    except (git.BadName, ValueError):
        return None
    listing = repo.git.diff(ref, "--name-only", "-z", "--", *relpaths)
    return [entry for entry in listing.split("\0") if entry]


@_one_line_errors
def changed_paths(path: Path) -> list[str]:
    """Every path with uncommitted changes, untracked files included (one per file)."""
    entries = _repo(path).git.status("--porcelain", "-z", "--untracked-files=all").split("\0")
    paths: list[str] = []
    skip_next = False
    for entry in entries:
        if skip_next or not entry:
            skip_next = False
            continue
        paths.append(entry[3:])
        skip_next = entry[0] in "RC"  # a rename or copy is followed by its original path
    return paths


@_one_line_errors
def tracked_changes(path: Path) -> list[str]:
    """Tracked files whose work tree (or index) differs from HEAD: edited, deleted or replaced,
    one per file; none before a first commit."""
    repo = _repo(path)
    if not repo.head.is_valid():
        return []
    listing = repo.git.diff("HEAD", "--name-only", "--no-renames", "-z")
    return sorted({entry for entry in listing.split("\0") if entry})


@_one_line_errors
def stash_tracked(path: Path, message: str) -> str | None:
    """Keep the uncommitted changes to tracked files as a stash entry (`git stash list`), the
    work tree left as it is; the stash commit's id, or None when nothing changed."""
    git_cmd = _repo(path).git
    created = str(git_cmd.stash("create", message)).strip()
    if not created:
        return None
    git_cmd.stash("store", "-m", message, created)
    return created


@_one_line_errors
def listed_files(path: Path) -> list[str]:
    """Every file git would keep: tracked ones, and untracked ones it does not ignore."""
    listing = _repo(path).git.ls_files("-z", "--cached", "--others", "--exclude-standard")
    return sorted({entry for entry in listing.split("\0") if entry})


@_one_line_errors
def committed_text(path: Path, relpath: str) -> str:
    """The file as HEAD has it; empty when HEAD has no such file."""
    import git

    try:
        return str(_repo(path).git.show(f"HEAD:{relpath}"))
    except git.GitCommandError:
        return ""


@_one_line_errors
def is_dirty(path: Path, relpath: str | None = None) -> bool:
    """Uncommitted changes (untracked files included), in the whole tree or in one path."""
    paths = [relpath] if relpath else []
    return bool(_repo(path).git.status("--porcelain", "--", *paths).strip())


@_one_line_errors
def ever_committed(path: Path, relpath: str) -> bool:
    """Whether any commit ever held `relpath`: a state file that was recorded must not vanish."""
    return bool(_repo(path).git.log("-1", "--format=%H", "--", relpath).strip())


@_one_line_errors
def log_records(path: Path, format_: str, *, last: int | None = None) -> list[list[str]]:
    """Per commit of HEAD, oldest first (or only the `last` few), its fields in git's `--format`
    with fields separated by `%x00`; none before a commit. Split on NUL, which no commit message
    holds: a subject may hold any line break Python knows (U+2028, NEL, \\x1e)."""
    repo = _repo(path)
    if not repo.head.is_valid():
        return []
    limit = [f"-{last}"] if last else []
    listing = repo.git.log(*limit, "-z", f"--format={format_}", strip_newline_in_stdout=False)
    parts = listing.removesuffix("\0").split("\0")
    width = format_.count("%x00") + 1
    records = [parts[i : i + width] for i in range(0, len(parts) - width + 1, width)]
    return records[::-1]


@_one_line_errors
def tags_with_prefix(path: Path, prefix: str) -> dict[str, str]:
    """Tag name → the commit it points at, for the tags starting with `prefix`."""
    listing = _repo(path).git.tag(
        "--list", f"{prefix}*", "--format=%(refname:short)%00%(objectname)%00%(*objectname)%00"
    )
    parts = listing.split("\0")
    found = {}
    for index in range(0, len(parts) - 2, 3):
        name, commit, peeled = parts[index : index + 3]
        found[name.lstrip("\n")] = peeled or commit
    return found


@_one_line_errors
def diff_text(path: Path, revisions: Sequence[str], relpaths: Sequence[str]) -> str:
    """`git diff` between commits (or a commit and the work tree) for `relpaths`, each Markdown
    hunk's header naming the heading above it (`diff.gitattributes`)."""
    attributes = f"core.attributesFile={DIFF_ATTRIBUTES}"
    return str(_repo(path).git(c=attributes).diff(*revisions, "--", *relpaths))


@_one_line_errors
def file_at(path: Path, commit: str, relpath: str) -> str | None:
    """The file as `commit` has it; None when that commit has no such file."""
    import git

    try:
        return str(_repo(path).git.show(f"{commit}:{relpath}"))
    except git.GitCommandError:
        return None


@_one_line_errors
def restore_tree(path: Path, commit: str, keep: Sequence[str]) -> None:
    """The work tree as `commit` has it (tracked files it lacks are removed), except the `keep`
    paths, which stay as they are. The index and history are not touched: the caller commits."""
    clear_stale_lock(path)
    excluded = [f":(exclude){relpath}" for relpath in keep]
    _repo(path).git.restore(f"--source={commit}", "--worktree", "--", ".", *excluded)


def clear_stale_lock(path: Path) -> None:
    """A git killed mid-commit leaves `index.lock`, which blocks every later commit.

    It is removed once no git process works in this repository; a live one gets
    `LOCK_WAIT_SECONDS` to finish, then the error names the lock.
    """
    lock = path / ".git" / "index.lock"
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    while lock.exists():
        if not _git_running_in(path):
            lock.unlink(missing_ok=True)
            log_event(path, "stale_git_lock_removed", level="warning", lock=str(lock))
            return
        if time.monotonic() > deadline:
            raise ThoughtForgeError(f"{lock} is held by a running git process; try again later")
        time.sleep(0.1)


def foreign_control(path: Path) -> list[str]:
    """What in `.git/` git would act on that ThoughtForge did not put there: hooks (anything in
    `.git/hooks/` but git's own samples) and config keys (`.git/config:core.fsmonitor`)."""
    git_dir = path / ".git"
    hooks = git_dir / "hooks"
    found = sorted(
        f".git/hooks/{entry.name}"
        for entry in (hooks.iterdir() if hooks.is_dir() else ())
        if not entry.name.endswith(".sample")
    )
    return found + [f".git/config:{key}" for key in _config_keys(git_dir / "config")]


def _config_keys(config: Path) -> list[str]:
    """The keys of `.git/config` beyond `OWN_CONFIG_KEYS`, read as a file (its includes are not
    followed), remembered while the file stays the same."""
    try:
        info = config.stat()
    except FileNotFoundError:
        return []
    signature = (info.st_ino, info.st_size, info.st_mtime_ns)
    remembered = _config_seen.get(config)
    if remembered is not None and remembered[0] == signature:
        return remembered[1]
    listing = subprocess.run(
        [
            *("git", "config", "--file", str(config.absolute())),
            *("--no-includes", "--name-only", "--list", "-z"),
        ],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        cwd="/",  # outside any repository: the file is only read, nothing in it is set up
        check=False,
    )
    if listing.returncode != 0:
        keys = ["(unreadable)"]
    else:
        names = listing.stdout.decode(errors="replace").split("\0")
        keys = sorted({name for name in names if name and name.lower() not in OWN_CONFIG_KEYS})
    _config_seen[config] = (signature, keys)
    return keys


_config_seen: dict[Path, tuple[tuple[int, int, int], list[str]]] = {}


def _git_running_in(path: Path) -> bool:
    """A git process working in the repository, other than GitPython's long-lived readers."""
    root = str(path.resolve())
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if (proc / "comm").read_text().strip() != "git":
                continue
            if (proc / "cmdline").read_bytes().split(b"\0")[1:2] == [b"cat-file"]:
                continue
            cwd = str((proc / "cwd").readlink())
        except OSError:
            continue
        if cwd == root or cwd.startswith(root + os.sep):
            return True
    return False


_local = threading.local()
"""Each thread's own `Repo`s: GitPython's `git cat-file` helpers are one pipe each, and two
threads reading one at once (the page serving two requests) wait on it for ever."""


def _repo(path: Path) -> git.Repo:
    """One `Repo` per project and thread (a new one starts new `git cat-file` helpers, which go
    with their thread), checked for an agent's hooks and config before every use."""
    import git

    key = path.resolve()
    tampered = foreign_control(key)
    if tampered:
        raise RepositoryTampered(key, tampered)
    repos: dict[Path, git.Repo] = _local.__dict__.setdefault("repos", {})
    repo = repos.get(key)
    if repo is None or not Path(repo.git_dir).exists():
        repo = repos[key] = git.Repo(key)
        # a read (`git status`) never rewrites the index: on a full disk it would fail there
        repo.git.set_persistent_git_options(c=list(SAFE_CONFIG), no_optional_locks=True)
    return repo
