"""What ThoughtForge commits in a project: its own files, and what an agent wrote only when that
is the deliverable.

`git add -A` would commit anything an agent wrote into the project, a plan-mode agent's `evil.py`
included. So commits stage explicit paths: the state files, the polish loop's record, the
Markdown documents in `docs/` and the human's `resources/`. Everything else is "foreign": never
committed in plan mode, and reported by the caller (the phase engine halts plan mode on foreign
source files). In code mode the agent's files are the deliverable and are committed too; what
git ignores (caches, build output, ThoughtForge's working files) never is.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from pydantic import BaseModel

from thoughtforge.core import git_repo
from thoughtforge.core.agent_activity import ACTIVITY_FILE, STREAM_FILE
from thoughtforge.core.atomic_write import is_temporary
from thoughtforge.core.course_claim import STARTING_FILE
from thoughtforge.core.hooks import BOARD_CARD_FILE
from thoughtforge.core.links import refuse_links
from thoughtforge.core.own_files import read_own_bytes
from thoughtforge.core.processes import PROCESSES_FILE
from thoughtforge.core.project_log import LOG_FILE, log_event
from thoughtforge.core.revisions import BUILT_FROM_FILE, REVISIONS_FILE
from thoughtforge.core.run_lock import LOCK_FILE
from thoughtforge.core.space_reserve import RESERVE_FILE
from thoughtforge.core.spend.ledger import USAGE_FILE
from thoughtforge.core.state import (
    ACCEPTANCE_LOCK_FILE,
    BUILD_PROGRESS_FILE,
    CHAT_ARCHIVE_FILE,
    CHAT_HISTORY_FILE,
    CODE_BUILD_FILE,
    POLISH_STATE_FILE,
    STATE_LOCK_FILE,
    STATUS_FILE,
)
from thoughtforge.core.waiting import WAITING_FILE
from thoughtforge.errors import ProjectError

POLISH_LOG_FILE = "polish_log.md"
POLISH_LEDGER_FILE = "polish_ledger.json"
"""The polish loop's findings and their lives (`phases.polish.finding_tracker`)."""
POLISHED_TAG = "thoughtforge-polished"
"""Points at the commit a finished deliverable was last polished at (re-polish compares with it)."""
REVIEW_FILE = "review.json"
REJECTED_DIR = "rejected"
UPLOAD_PART_PREFIX = ".upload-"
"""A file still being received into `resources/` is named so; it is no resource until renamed."""
"""Answers an agent gave that a step could not use, kept for the person (committed)."""
PRIVATE_FILES = (
    LOG_FILE,
    LOCK_FILE,
    PROCESSES_FILE,
    STATE_LOCK_FILE,
    WAITING_FILE,
    BOARD_CARD_FILE,
    ACTIVITY_FILE,
    STREAM_FILE,
    RESERVE_FILE,
    STARTING_FILE,
    USAGE_FILE,  # money spent stays spent: no reset or rollback of the deliverable undoes it
    ".scripted-agent/",
    f"resources/{UPLOAD_PART_PREFIX}",
)
"""ThoughtForge's working files: never committed, never reported (listed in `.gitignore`)."""
OWN_FILES = frozenset(
    {
        *(STATUS_FILE, CHAT_HISTORY_FILE, POLISH_STATE_FILE, CODE_BUILD_FILE, POLISH_LOG_FILE),
        *(REVIEW_FILE, CHAT_ARCHIVE_FILE, BUILD_PROGRESS_FILE, ".gitignore"),
        *(REVISIONS_FILE, BUILT_FROM_FILE, POLISH_LEDGER_FILE, ACCEPTANCE_LOCK_FILE),
    }
)
BUILD_OUTPUT = ("__pycache__/", ".pytest_cache/", "node_modules/", "target/", ".venv/")
"""What a code project's own tooling leaves behind: ignored, so it is never committed."""
SOURCE_SUFFIXES = frozenset(
    {
        *(".py", ".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx", ".sh", ".bash", ".zsh", ".rb"),
        *(".go", ".rs", ".java", ".kt", ".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".php"),
        *(".pl", ".lua", ".swift", ".scala", ".r", ".sql", ".ps1", ".bat", ".cmd"),
        *(".exe", ".so", ".dll"),
    }
)


class Changes(BaseModel):
    own: list[str] = []
    foreign: list[str] = []

    @property
    def foreign_sources(self) -> list[str]:
        """Foreign files that are code: what plan mode's safety rules forbid outright."""
        return [p for p in self.foreign if PurePosixPath(p).suffix.lower() in SOURCE_SUFFIXES]


def is_own(relpath: str) -> bool:
    """Whether `relpath` is one of ThoughtForge's own files, which it commits."""
    path = PurePosixPath(relpath)
    document = path.parent.name == "docs" and (path.suffix == ".md" or path.name == ".gitkeep")
    in_docs = document and len(path.parts) == 2
    return relpath in OWN_FILES or path.parts[0] in ("resources", REJECTED_DIR) or in_docs


def changes(project_dir: Path) -> Changes:
    """The uncommitted paths, split into ThoughtForge's own and foreign ones."""
    found = Changes()
    for relpath in git_repo.changed_paths(project_dir):
        if not relpath.startswith(PRIVATE_FILES) and not is_temporary(relpath):
            (found.own if is_own(relpath) else found.foreign).append(relpath)
    return found


def mark_polished(project_dir: Path) -> None:
    """Tag HEAD as what the deliverable was last polished at."""
    git_repo.tag(project_dir, POLISHED_TAG)


def commit_own(project_dir: Path, message: str, *, agent_files: bool = False) -> Changes:
    """Commit ThoughtForge's own changed files, and the agent's too with `agent_files`;
    otherwise foreign ones are logged and left uncommitted. A link where one of its own files
    (or their folder) belongs is refused, never committed as the file."""
    found = changes(project_dir)
    for relpath in found.own:
        refuse_links(project_dir / relpath)
    git_repo.commit(project_dir, message, found.own + found.foreign if agent_files else found.own)
    if found.foreign and not agent_files:
        log_event(project_dir, "foreign_files_not_committed", level="warning", files=found.foreign)
    return found


class UncommittedEdits(ProjectError):
    """Files would be put back over uncommitted edits of tracked files, which no commit holds."""

    def __init__(self, project_dir: Path, what: str, paths: list[str]) -> None:
        self.paths = paths
        listed = ", ".join(paths[:10]) + (f" and {len(paths) - 10} more" if len(paths) > 10 else "")
        super().__init__(
            f"cannot {what}: it would overwrite uncommitted edits in {project_dir.name} "
            f"({listed}), which no commit holds. Keep them as your commit first (--keep-edits, "
            f'keep_edits in MCP, "Keep my uncommitted edits" in the page\'s history; '
            f"`thoughtforge history` lists it), or commit or undo them "
            f"yourself (git -C {project_dir} status)."
        )


def uncommitted_edits(project_dir: Path) -> list[str]:
    """Tracked files edited (or deleted) since the last commit, ThoughtForge's own records
    (status, chat, polish state) left out: what a person or an agent changed by hand."""
    return [
        relpath
        for relpath in git_repo.tracked_changes(project_dir)
        if relpath not in OWN_FILES and not relpath.startswith(PRIVATE_FILES)
    ]


def secure_edits(project_dir: Path, what: str, *, keep: bool) -> str | None:
    """The one rule before an operation a person asks for puts files back (rollback, revise):
    uncommitted edits of tracked files are refused (`UncommittedEdits`, naming them), or with
    `keep` committed as the person's first; that commit's id, or None when there were none."""
    edited = uncommitted_edits(project_dir)
    if not edited:
        return None
    if not keep:
        raise UncommittedEdits(project_dir, what, edited)
    git_repo.commit(project_dir, f"Your uncommitted edits, kept before you asked to {what}", edited)
    [[commit]] = git_repo.log_records(project_dir, "%h", last=1)
    log_event(project_dir, "uncommitted_edits_kept", files=edited, commit=commit, before=what)
    return commit


def discard_agent_changes(project_dir: Path) -> list[str]:
    """Put the agent's files back as the last commit has them (`git reset --hard` + `git clean
    -fd`), keeping ThoughtForge's own uncommitted files; returns the paths discarded.

    A failed build step leaves a half-written tree; its retry must start from the last step
    that worked, and the project's state (its phase, its chat) must not go back with it. Edits
    of tracked files are stashed first (no one is there to ask; `git stash list` holds them
    and the project log says where), so a hand edit made meanwhile is never destroyed.
    """
    found = changes(project_dir)
    edited = uncommitted_edits(project_dir)
    if edited:
        stash = git_repo.stash_tracked(project_dir, "ThoughtForge: edits before undoing a step")
        log_event(
            project_dir, "uncommitted_edits_stashed", level="warning", files=edited, stash=stash,
            restore=f"git -C {project_dir} stash apply {stash}",
        )  # fmt: skip
    kept = {relpath: _content(project_dir / relpath) for relpath in found.own}
    git_repo.reset_hard(project_dir, keep=[*PRIVATE_FILES, *BUILD_OUTPUT])
    for relpath, content in kept.items():
        target = project_dir / relpath
        if content is None:
            target.unlink(missing_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
    if found.foreign:
        log_event(project_dir, "agent_changes_discarded", level="warning", files=found.foreign)
    return found.foreign


def _content(path: Path) -> bytes | None:
    """The file as it is, or None for none (a link, a pipe in its place: none of ThoughtForge's)."""
    try:
        return read_own_bytes(path)
    except OSError:
        return None
