"""What a project made, as a door reads it: its deliverable and documents (never through a
link, cut at `MAX_DOCUMENT_CHARS`) and Phase 4's record (`PolishRecordView`). MCP's
`read_document` and `read_polish_record` answer from here."""

from __future__ import annotations

from pydantic import BaseModel

from thoughtforge.config import Config
from thoughtforge.core.own_files import read_own_text
from thoughtforge.core.project import CONSTRAINTS_FILE, SPEC_FILE, Project
from thoughtforge.core.staging import POLISH_LOG_FILE
from thoughtforge.core.state import TrajectoryEntry
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.phases.plugin_loader import plugin_for
from thoughtforge.phases.polish.record import read_polish_record
from thoughtforge.phases.traceability import TRACEABILITY_FILE

MAX_DOCUMENT_CHARS = 500_000
DOCUMENTS = {
    "spec": SPEC_FILE,
    "constraints": CONSTRAINTS_FILE,
    "polish-log": POLISH_LOG_FILE,
    "traceability": TRACEABILITY_FILE,
}
"""Each acceptance criterion's evidence is `traceability` (`phases.traceability`)."""


class IterationRecord(BaseModel):
    """One polish iteration as its log tells it: its title, verdict and parts (issues, fixes,
    guards), by the log's headings."""

    title: str
    verdict: str
    parts: dict[str, list[str]]


class PolishRecordView(BaseModel):
    """Phase 4's record: the trajectory (issues by severity per iteration), each iteration's
    log, and the files that could not be read."""

    trajectory: list[TrajectoryEntry]
    iterations: list[IterationRecord]
    problems: list[str]


def read_document(config: Config, project: Project, document: str) -> str:
    """A project's deliverable, spec, constraints, polish log or traceability, never through
    a link."""
    if document == "deliverable":
        return _deliverable(config, project)
    if document not in DOCUMENTS:
        raise ThoughtForgeError(f"no document '{document}': deliverable, {', '.join(DOCUMENTS)}")
    path = project.dir / DOCUMENTS[document]
    if not path.exists():
        raise ThoughtForgeError(f"{project.id} has no {document} yet ({project.status().phase})")
    return _capped(read_own_text(path))


def polish_record(project: Project) -> PolishRecordView:
    record = read_polish_record(project.dir)
    return PolishRecordView(
        trajectory=record.trajectory,
        iterations=[
            IterationRecord(title=entry.title, verdict=entry.verdict, parts=entry.parts)
            for entry in record.log
        ],
        problems=record.problems,
    )


def _deliverable(config: Config, project: Project) -> str:
    status = project.status()
    plugin = plugin_for(config, status.deliverable_type)
    path = plugin.deliverable_path(project.dir)
    if plugin.builds_files:
        return (
            f"{project.id} builds code: its deliverable is the project's files in {path} "
            f"(phase {status.phase})."
        )
    if not path.exists():
        raise ThoughtForgeError(f"{project.id} has no deliverable yet ({status.phase})")
    return _capped(read_own_text(path))


def _capped(text: str) -> str:
    if len(text) <= MAX_DOCUMENT_CHARS:
        return text
    return text[:MAX_DOCUMENT_CHARS] + f"\n\n[cut at {MAX_DOCUMENT_CHARS:,} characters]"
