"""Projects on disk: `<projects.directory>/<id>/` with `docs/`, `resources/` and a git repo."""

from __future__ import annotations

import re
import secrets
import shutil
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from thoughtforge.config import Config, load_config
from thoughtforge.core.git_repo import commit, init_repo
from thoughtforge.core.processes import PROCESSES_FILE
from thoughtforge.core.project_log import LOG_FILE, log_event
from thoughtforge.core.state import (
    ChatMessage,
    Status,
    read_status,
    utc_now,
    write_chat,
    write_status,
)
from thoughtforge.errors import ProjectError, ProjectLimitError, StateFileError
from thoughtforge.models import DeliverableType, HaltReason, Phase

# The pipeline's documents, relative to the project directory.
INTENT_FILE = "docs/intent.md"
SPEC_FILE = "docs/spec.md"
CONSTRAINTS_FILE = "docs/constraints.md"
PLAN_FILE = "docs/plan.md"

_ID_ATTEMPTS = 20
_SLUG_WORDS = 4
_SLUG_CHARS = 24
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._ -]+")
_VALID_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,80}$")
_FILLER = frozenset({"a", "an", "and", "the", "i", "im", "we", "to", "of", "for", "in", "on"})
_GITIGNORE = f"{LOG_FILE}\n.run.lock\n{PROCESSES_FILE}\n.scripted-agent/\n"


class Project(BaseModel):
    """A handle on one project directory. The directory name is the project id."""

    model_config = ConfigDict(frozen=True)

    id: str
    dir: Path

    @property
    def docs_dir(self) -> Path:
        return self.dir / "docs"

    @property
    def resources_dir(self) -> Path:
        return self.dir / "resources"

    def status(self) -> Status:
        return read_status(self.dir)

    def deliverable_path(self, status: Status) -> Path:
        """Where the finished deliverable is: the plan document, or the project's code."""
        if status.deliverable_type is DeliverableType.CODE:
            return self.dir
        return self.dir / PLAN_FILE


class ProjectListing(BaseModel):
    """A project and its status, or the reason its status could not be read."""

    project: Project
    status: Status | None
    error: str | None = None

    @property
    def is_active(self) -> bool:
        """Active projects count against `concurrency.max_parallel_runs`; unreadable ones do too."""
        if self.status is None:
            return True
        if self.status.phase is Phase.DONE:
            return False
        return self.status.halt_reason is not HaltReason.HUMAN_TERMINATED


def open_project(config: Config, project_id: str) -> Project:
    if not _VALID_ID.match(project_id):
        raise ProjectError(
            f"'{project_id}' is not a project id (ids look like 20261122-wedding-a3f9)"
        )
    path = config.projects.directory / project_id
    if not path.is_dir():
        raise ProjectError(f"no project '{project_id}' in {config.projects.directory}")
    return Project(id=project_id, dir=path)


def list_projects(config: Config) -> list[ProjectListing]:
    root = config.projects.directory
    if not root.is_dir():
        return []
    listings = []
    for path in sorted(p for p in root.iterdir() if p.is_dir() and _VALID_ID.match(p.name)):
        project = Project(id=path.name, dir=path)
        try:
            listings.append(ProjectListing(project=project, status=project.status()))
        except StateFileError as exc:
            listings.append(ProjectListing(project=project, status=None, error=str(exc)))
    return listings


def create_project(
    config: Config,
    *,
    brain_dump: str | None = None,
    resources: list[Path] = (),  # type: ignore[assignment]
    agent: str | None = None,
) -> Project:
    """Create the directory, git repo and state files, copy resources, and commit it all once.

    Everything that can be refused (limit, agent name, resource paths) is checked before anything
    is written, and a half-made project directory is removed if a later step fails.
    """
    agent = agent or config.agents.default
    config.agent(agent)
    _check_brain_dump(config, brain_dump or "")
    _check_resources(resources)
    _check_capacity(config)
    project = _make_directory(config, brain_dump or "")
    try:
        _populate(project, brain_dump, list(resources), agent)
    except BaseException:
        shutil.rmtree(project.dir, ignore_errors=True)
        raise
    log_event(project.dir, "project_created", agent=agent, resources=len(resources))
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


def _check_resources(resources: list[Path]) -> None:
    for path in resources:
        if not path.is_file():
            raise ProjectError(f"resource {path} is not a readable file")


def _check_capacity(config: Config) -> None:
    limit = config.concurrency.max_parallel_runs
    active = sum(1 for listing in list_projects(config) if listing.is_active)
    if active >= limit:
        raise ProjectLimitError(
            f"Maximum parallel projects reached ({active}/{limit}). "
            "Complete or halt an existing project to start a new one."
        )


def _make_directory(config: Config, brain_dump: str) -> Project:
    root = config.projects.directory
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ProjectError(f"cannot create projects directory {root}: {exc.strerror}") from None
    stem = f"{datetime.now(UTC):%Y%m%d}-{_slug(brain_dump)}"
    for _ in range(_ID_ATTEMPTS):
        project_id = f"{stem}-{secrets.token_hex(2)}"
        try:
            (root / project_id).mkdir()
        except FileExistsError:
            continue
        return Project(id=project_id, dir=root / project_id)
    raise ProjectError(f"could not find a free project id under {root} after {_ID_ATTEMPTS} tries")


def _populate(project: Project, brain_dump: str | None, resources: list[Path], agent: str) -> None:
    project.docs_dir.mkdir()
    project.resources_dir.mkdir()
    for folder in (project.docs_dir, project.resources_dir):
        (folder / ".gitkeep").touch()
    (project.dir / ".gitignore").write_text(_GITIGNORE, encoding="utf-8")
    init_repo(project.dir)
    now = utc_now()
    write_status(
        project.dir, Status(phase=Phase.BRAIN_DUMP, agent=agent, created_at=now, updated_at=now)
    )
    chat = (
        []
        if not brain_dump
        else [ChatMessage(role="human", content=brain_dump, phase=Phase.BRAIN_DUMP)]
    )
    write_chat(project.dir, chat)
    for source in resources:
        shutil.copyfile(source, _free_name(project.resources_dir, safe_file_name(source.name)))
    commit(project.dir, "Create project")


def safe_file_name(name: str) -> str:
    """A file name that cannot escape its folder, hide itself, or upset a shell or git."""
    cleaned = _SAFE_NAME.sub("_", Path(name).name).strip(" .")
    return cleaned[:120] or "resource"


def _free_name(folder: Path, name: str) -> Path:
    candidate = folder / name
    stem, suffix = candidate.stem, candidate.suffix
    n = 1
    while candidate.exists():
        candidate = folder / f"{stem}-{n}{suffix}"
        n += 1
    return candidate


def _slug(text: str) -> str:
    words = [w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _FILLER][:_SLUG_WORDS]
    return "-".join(words)[:_SLUG_CHARS].strip("-") or "project"


def load_project(project_id: str, config_path: str | None) -> tuple[Config, Project]:
    """What every phase flow starts with: its parameters are plain strings, so a deployment can
    pass them."""
    config = load_config(Path(config_path) if config_path else None)
    return config, open_project(config, project_id)
