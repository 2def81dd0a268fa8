"""Creating a project: checked first, built aside, then put in place in one rename.

* Everything that can be refused (brain dump size, agent name, resource paths, the project limit)
  is checked before anything is written.
* Creation holds a lock on the projects folder (a `flock` on the folder itself), so the limit
  check and the new directory are one step: concurrent `new` commands cannot overshoot
  `concurrency.max_parallel_runs`.
* The project is built in `.creating-<id>` and renamed into place when complete, so a kill at any
  point leaves no half-made project; the next creation removes such leftovers (holding the lock
  proves their creator is gone).
"""

from __future__ import annotations

import fcntl
import os
import re
import secrets
import shutil
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from thoughtforge.bounded_input import MAX_TEXT_FILE_BYTES, read_capped_text
from thoughtforge.config import Config
from thoughtforge.core.atomic_write import TEMPORARY_PATTERN
from thoughtforge.core.git_repo import commit, init_repo
from thoughtforge.core.hooks import show_on_board
from thoughtforge.core.project import Project, list_projects
from thoughtforge.core.project_log import log_event
from thoughtforge.core.safe_names import safe_file_name
from thoughtforge.core.space_reserve import keep_reserve
from thoughtforge.core.staging import BUILD_OUTPUT, PRIVATE_FILES
from thoughtforge.core.state import ChatMessage, Status, utc_now, write_chat, write_status
from thoughtforge.errors import (
    ConfigError,
    ProjectError,
    ProjectFileError,
    ProjectLimitError,
)
from thoughtforge.models import Phase

STAGING_PREFIX = ".creating-"
_SLUG_WORDS = 4
_SLUG_CHARS = 24
_FILLER = frozenset({"a", "an", "and", "the", "i", "im", "we", "to", "of", "for", "in", "on"})
_GITIGNORE = "".join(f"{name}\n" for name in (*PRIVATE_FILES, TEMPORARY_PATTERN, *BUILD_OUTPUT))


def create_project(
    config: Config,
    *,
    brain_dump: str | None = None,
    resources: Sequence[Path] = (),
    agent: str | None = None,
    within_run_slot: bool = False,
) -> Project:
    """Create the directory, git repo and state files, copy resources, and commit it all once.

    `within_run_slot`: the caller holds a run slot of the server's limit, which bounds creation
    (a burst waits for slots); otherwise active projects beyond the limit are refused."""
    agent = agent or config.agents.default
    config.agent(agent)
    _check_brain_dump(config, brain_dump or "")
    _check_resources(resources)
    root = _projects_root(config)
    with _creation_lock(root):
        _remove_leftovers(root)
        if not within_run_slot:
            _check_capacity(config)
        project_id = _free_id(root, brain_dump or "")
        staging = root / f"{STAGING_PREFIX}{project_id}"
        try:
            staging.mkdir()
            skipped = _populate(staging, config, brain_dump, list(resources), agent)
            staging.rename(root / project_id)
        except BaseException as exc:
            shutil.rmtree(staging, ignore_errors=True)
            if isinstance(exc, OSError) and not isinstance(exc, ProjectFileError):
                where = Path(exc.filename or staging)
                raise ProjectFileError(where, f"cannot be created ({exc.strerror})") from None
            raise
    project = Project(id=project_id, dir=root / project_id)
    log_event(project.dir, "project_created", agent=agent, resources=len(resources))
    for name in skipped:
        log_event(project.dir, "resource_skipped", level="warning", file=name, why="too large")
    show_on_board(project)
    return project


def _check_brain_dump(config: Config, text: str) -> None:
    """The brain dump goes to the agent whole; large material belongs in resources/, which are
    cut to the agent's context window."""
    limit = config.brain_dump.max_chars
    if len(text) > limit:
        raise ProjectError(
            f"the brain dump has {len(text):,} characters; brain_dump.max_chars is {limit:,}. "
            "Keep the brain dump to what you want, and add long material as resource files "
            "(--resource FILE): those are cut to fit the agent's context window."
        )


def check_distillable(config: Config, text: str) -> None:
    """For a command that runs at once (no page to say more on): a brain dump too short to distil
    is refused before a project is made, so it never takes one of the active-project slots."""
    said = len(text.strip())
    minimum = config.brain_dump.min_chars
    if said < minimum:
        raise ProjectError(
            f"the brain dump has {said} characters; at least {minimum} are needed to distil it "
            "(brain_dump.min_chars). Say what should exist at the end, who it is for, and the "
            "limits you already know (dates, budget, tools, people)."
        )


def _check_resources(resources: Sequence[Path]) -> None:
    for path in resources:
        if not path.is_file():
            raise ProjectError(f"resource {path} is not a readable file")


def _projects_root(config: Config) -> Path:
    root = config.projects.directory
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ProjectError(f"cannot create projects directory {root}: {exc.strerror}") from None
    return root


@contextmanager
def _creation_lock(root: Path) -> Iterator[None]:
    """An exclusive `flock` on the projects folder itself: no lock file to list or clean up."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _remove_leftovers(root: Path) -> None:
    for leftover in root.glob(f"{STAGING_PREFIX}*"):
        shutil.rmtree(leftover, ignore_errors=True)


def _check_capacity(config: Config) -> None:
    limit = config.concurrency.max_parallel_runs
    active = sum(1 for listing in list_projects(config) if listing.is_active)
    if active >= limit:
        raise ProjectLimitError(capacity_message(active, limit))


def capacity_message(active: int, limit: int) -> str:
    """The spec's words when `concurrency.max_parallel_runs` projects are active, except how to
    free a slot: a halted project holds its slot until it is terminated or archived."""
    return (
        f"Maximum parallel projects reached ({active}/{limit}). "
        "Finish or terminate an existing project (`thoughtforge terminate ID`) to start a new "
        "one; a halted project counts until it is terminated or archived "
        "(`thoughtforge archive ID`)."
    )


def _free_id(root: Path, brain_dump: str) -> str:
    """A new id; free for sure, since creation holds the projects folder's lock."""
    stem = f"{datetime.now(UTC):%Y%m%d}-{_slug(brain_dump)}"
    while True:
        project_id = f"{stem}-{secrets.token_hex(2)}"
        if not (root / project_id).exists():
            return project_id


def _populate(
    directory: Path, config: Config, brain_dump: str | None, resources: list[Path], agent: str
) -> list[str]:
    """Everything a project starts with, committed once; returns the resources skipped."""
    for folder in (directory / "docs", directory / "resources"):
        folder.mkdir()
        (folder / ".gitkeep").touch()
    (directory / ".gitignore").write_text(_GITIGNORE, encoding="utf-8")
    init_repo(directory)
    now = utc_now()
    write_status(
        directory, Status(phase=Phase.BRAIN_DUMP, agent=agent, created_at=now, updated_at=now)
    )
    chat = (
        [ChatMessage(role="human", content=brain_dump, phase=Phase.BRAIN_DUMP)]
        if brain_dump
        else []
    )
    skipped = []
    for source in resources:
        name = safe_file_name(source.name)
        if source.stat().st_size > config.resources.max_file_bytes:
            skipped.append(name)
            chat.append(_skipped_notice(name))
            continue
        shutil.copyfile(source, _free_name(directory / "resources", name))
    write_chat(directory, chat)
    commit(directory, "Create project")
    keep_reserve(directory)
    return skipped


def _skipped_notice(name: str) -> ChatMessage:
    """The spec's wording, as when Phase 1 meets an oversized file."""
    return ChatMessage(
        role="system",
        content=f"File '{name}' exceeds size limit and was skipped.",
        phase=Phase.BRAIN_DUMP,
    )


def _free_name(folder: Path, name: str) -> Path:
    candidate = folder / name
    stem, suffix = candidate.stem, candidate.suffix
    n = 1
    while candidate.exists():
        candidate = folder / f"{stem}-{n}{suffix}"
        n += 1
    return candidate


def _slug(text: str) -> str:
    """A few words of the brain dump, each whole: an apostrophe joins its word ("we're" is
    "were", not "re") and an accent leaves its letter ("café" is "cafe", not "caf")."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    plain = "".join(char for char in decomposed if not unicodedata.combining(char))
    joined = re.sub(r"(?<=[a-z0-9])['’](?=[a-z])", "", plain)
    words = [w for w in re.findall(r"[a-z0-9]+", joined) if w not in _FILLER][:_SLUG_WORDS]
    return "-".join(words)[:_SLUG_CHARS].strip("-") or "project"


def brain_dump_text(brain_dump: str, brain_dump_file: str) -> str:
    """A deployment's brain dump: text as given, or read from a file (`brain_dump_file`, or
    `brain_dump="@path"`, since a shell mangles a multi-line `-p brain_dump=…`)."""
    if brain_dump.startswith("@") and "\n" not in brain_dump and not brain_dump_file:
        brain_dump_file = brain_dump[1:]
        brain_dump = ""
    if brain_dump and brain_dump_file:
        raise ConfigError("give brain_dump or brain_dump_file, not both")
    if not brain_dump_file:
        return brain_dump
    path = Path(brain_dump_file).expanduser()
    return read_capped_text(path, MAX_TEXT_FILE_BYTES, "brain_dump_file")


_TYPE_HINT = re.compile(r"^Deliverable type: ([a-z][a-z0-9_]{0,39})$", re.MULTILINE)


def asked_type(brain_dump: str) -> str | None:
    """The deliverable type the person asked for beside their brain dump (`with_hints`), if any:
    Phase 1 decides the type, and until then the page says what was asked."""
    found = _TYPE_HINT.findall(brain_dump)
    return found[-1] if found else None


def with_hints(text: str, connector_urls: list[str] | None, deliverable_type: str) -> str:
    """The brain dump with what the person gave beside it: links to pull before the first
    distillation, and the kind of deliverable they want (a hint the distillation weighs)."""
    if connector_urls:
        text += "\n\nSources:\n" + "".join(f"- {url}\n" for url in connector_urls)
    if deliverable_type:
        text += f"\n\nDeliverable type: {deliverable_type}\n"
    return text
