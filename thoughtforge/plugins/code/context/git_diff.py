"""What changed lately, as `git diff` chunks per deliverable file: the commit to compare with,
then tracked changes since it and new untracked files."""

from __future__ import annotations

import re
from pathlib import Path

from thoughtforge.plugins.code.context.codebase import deliverable, read_file
from thoughtforge.plugins.code.context.git_commands import git_output, path_names, run_git


def diff_base_of(project_dir: Path, since: str | None) -> tuple[str | None, str]:
    """The commit to diff against and how the text names it.

    A diff against the empty tree is the whole codebase again, so without a usable `since` the
    last commit's changes stand in for "what changed lately", and a first commit has none.
    """
    if since and (commit := _commit(project_dir, since)):
        return commit, f"the changes since the last iteration ({since}, `git diff {since}`)"
    why = f"'{since}' is not a commit here" if since else "no previous iteration is recorded"
    if commit := _commit(project_dir, "HEAD~1"):
        return commit, f"the changes of the last commit ({why}; `git diff HEAD~1`)"
    return None, f"no changes ({why}, and there is no earlier commit to compare with)"


def _commit(project_dir: Path, ref: str) -> str | None:
    if ref.startswith("-"):
        return None
    done = run_git(project_dir, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if done.returncode != 0:
        return None
    return done.stdout.decode().strip() or None


def diff_chunks(project_dir: Path, base: str) -> list[tuple[str, str]]:
    """(path, diff) per changed deliverable file: tracked changes since `base`, then new files."""
    options = ("--no-renames", "--no-color", "--no-ext-diff")
    changed = path_names(git_output(project_dir, "diff", "--name-only", "-z", *options, base))
    paths = [p for p in changed if deliverable(p)]
    chunks: list[tuple[str, str]] = []
    if paths:
        specs = [f":(top,literal){p}" for p in paths]
        text = git_output(project_dir, "diff", *options, base, "--", *specs).decode(
            errors="replace"
        )
        chunks += _split_diff(text)
    untracked = git_output(project_dir, "ls-files", "-z", "--others", "--exclude-standard")
    for path in sorted(p for p in path_names(untracked) if deliverable(p)):
        file = read_file(project_dir / path, path)
        if file is not None and file.content is not None:
            done = run_git(project_dir, "diff", "--no-index", *options, "--", "/dev/null", path)
            chunks.append((path, done.stdout.decode(errors="replace")))
    return [(name, text) for name, text in chunks if text]


def _split_diff(text: str) -> list[tuple[str, str]]:
    """One chunk per `diff --git a/X b/X` header, named X (the header itself when quoted)."""
    chunks: list[tuple[str, str]] = []
    for part in re.split(r"(?m)^(?=diff --git )", text):
        if not part.strip():
            continue
        header = part.split("\n", 1)[0]
        rest = header.removeprefix("diff --git a/")
        name = rest[: (len(rest) - 3) // 2] if rest != header else header
        chunks.append((name, part))
    return chunks
