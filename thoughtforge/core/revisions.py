"""A project's revisions (change requests after `done`) and what its deliverable was built from.

`revisions.json` records every change request in order: revision 1 is the first pass and has no
entry; revision N+1 is the N-th entry. It is never put back by a rollback (it says what happened).
`built_from.json` holds the content hashes of `spec.md` and `constraints.md` when the deliverable
was last built, so a later hand edit of either shows as staleness; a rollback restores it with the
deliverable it describes.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from thoughtforge.core.atomic_write import write_text_atomic
from thoughtforge.core.own_files import read_own_bytes, read_own_text
from thoughtforge.core.project import CONSTRAINTS_FILE, SPEC_FILE
from thoughtforge.core.state import utc_now
from thoughtforge.errors import StateFileError, schema_problems

REVISIONS_FILE = "revisions.json"
BUILT_FROM_FILE = "built_from.json"
M = TypeVar("M", bound=BaseModel)
REVISION_TAG_PREFIX = "thoughtforge-revision-"
"""`thoughtforge-revision-N` marks the commit revision N began from, in the project's repo."""


class Revision(BaseModel):
    model_config = ConfigDict(extra="forbid")

    number: int = Field(ge=2)
    change: str
    started_at: datetime = Field(default_factory=utc_now)
    run_id: str | None = None
    """The flow run that started it (a deployment run), so a re-entered run does not start it
    again."""
    spec_before: str = ""
    constraints_before: str = ""
    sections: list[str] | None = None
    """Plan mode: the plan sections the change touches, once chosen."""
    rebuilt: list[str] = []
    build_begun: bool = False
    """Code mode: the builder's state was started again for the change's new steps."""
    built: bool = False
    unchanged: bool = False
    """Its build left the deliverable as it was (said in the chat and by the CLI)."""


class Revisions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    revisions: list[Revision] = []
    restored: int | None = None
    """The revision a restore put the files back to (`phases.rollback`), until the next change
    request: what the person sees is that revision's, though the next one is `current + 1`."""

    @property
    def current(self) -> int:
        return 1 + len(self.revisions)

    @property
    def shown(self) -> int:
        """The revision the project's files are from."""
        return self.restored if self.restored is not None else self.current

    @property
    def latest(self) -> Revision | None:
        return self.revisions[-1] if self.revisions else None


class BuiltFrom(BaseModel):
    model_config = ConfigDict(extra="forbid")

    spec: str
    constraints: str
    revision: int = 1
    built_at: datetime = Field(default_factory=utc_now)


def read_revisions(project_dir: Path) -> Revisions:
    """`revisions.json`; a project without one is on its first pass."""
    return _read(project_dir / REVISIONS_FILE, Revisions) or Revisions()


def write_revisions(project_dir: Path, revisions: Revisions) -> None:
    write_text_atomic(project_dir / REVISIONS_FILE, revisions.model_dump_json(indent=2) + "\n")


def current_revision(project_dir: Path) -> int:
    """The revision the project is on (1 until a change request)."""
    return read_revisions(project_dir).current


def open_revision(project_dir: Path) -> Revision | None:
    """The latest revision, while its Phase 3 has not finished."""
    latest = read_revisions(project_dir).latest
    return latest if latest is not None and not latest.built else None


def update_revision(project_dir: Path, revision: Revision) -> None:
    """Replace the latest entry (the one being worked on)."""
    revisions = read_revisions(project_dir)
    revisions.revisions[-1] = revision
    write_revisions(project_dir, revisions)


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def record_built_from(project_dir: Path) -> None:
    """Called as a build completes, before its commit: the hashes go into that commit."""
    built = BuiltFrom(
        spec=_file_hash(project_dir / SPEC_FILE),
        constraints=_file_hash(project_dir / CONSTRAINTS_FILE),
        revision=current_revision(project_dir),
    )
    write_text_atomic(project_dir / BUILT_FROM_FILE, built.model_dump_json(indent=2) + "\n")


def stale_inputs(project_dir: Path) -> list[str]:
    """The spec files that changed since the deliverable was built (empty when none was built,
    or nothing changed)."""
    built = _read(project_dir / BUILT_FROM_FILE, BuiltFrom)
    if built is None:
        return []
    now = {
        SPEC_FILE: _file_hash(project_dir / SPEC_FILE),
        CONSTRAINTS_FILE: _file_hash(project_dir / CONSTRAINTS_FILE),
    }
    recorded = {SPEC_FILE: built.spec, CONSTRAINTS_FILE: built.constraints}
    return [name for name, digest in now.items() if digest != recorded[name]]


def staleness_note(project_dir: Path) -> str | None:
    """One sentence for `status` and the page, or None when the deliverable is current."""
    stale = stale_inputs(project_dir)
    if not stale:
        return None
    return (
        f"{' and '.join(stale)} changed since the deliverable was built: revise the project "
        "to rebuild what the change touches."
    )


def _file_hash(path: Path) -> str:
    try:
        return content_hash(read_own_text(path))
    except (OSError, UnicodeDecodeError):
        return ""


def _read(path: Path, model: type[M]) -> M | None:
    try:
        raw = read_own_bytes(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StateFileError(path, str(exc)) from None
    try:
        return model.model_validate_json(raw)
    except ValidationError as exc:
        raise StateFileError(path, schema_problems(exc)) from None


def revision_words(revision: int) -> str:
    """How a revision is shown (status, page, card, run name): nothing for the first pass."""
    return f"revision {revision}" if revision > 1 else ""


def run_label(project_id: str, project_name: str | None, phase: str, revision: int) -> str:
    """A flow run's name: `<project id>` until the project is named, then `<name> · <phase>`,
    with `· revision N` once it was revised."""
    if not project_name:
        return project_id
    words = revision_words(revision)
    return f"{project_name} · {phase}" + (f" · {words}" if words else "")
