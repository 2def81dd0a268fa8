"""The MCP tools that read what a project made: its deliverable and documents (never through a
link, cut at `MAX_DOCUMENT_CHARS`) and Phase 4's record."""

from __future__ import annotations

from typing import Any

from thoughtforge.core import (
    CONSTRAINTS_FILE,
    POLISH_LOG_FILE,
    SPEC_FILE,
    Project,
    read_own_text,
)
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.mcp_server.tool_base import ToolBase
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


class DocumentTools(ToolBase):
    def read_document(self, project_id: str, document: str) -> str:
        """A project's deliverable, spec, constraints, polish log or traceability, never through
        a link."""
        project = self.project(project_id)
        if document == "deliverable":
            return self._deliverable(project)
        if document not in DOCUMENTS:
            raise ThoughtForgeError(
                f"no document '{document}': deliverable, {', '.join(DOCUMENTS)}"
            )
        path = project.dir / DOCUMENTS[document]
        if not path.exists():
            raise ThoughtForgeError(
                f"{project.id} has no {document} yet ({project.status().phase})"
            )
        return _capped(read_own_text(path))

    def read_polish_record(self, project_id: str) -> dict[str, Any]:
        record = read_polish_record(self.project(project_id).dir)
        return {
            "trajectory": [entry.model_dump(mode="json") for entry in record.trajectory],
            "iterations": [
                {"title": entry.title, "verdict": entry.verdict, **entry.parts}
                for entry in record.log
            ],
            "problems": record.problems,
        }

    def _deliverable(self, project: Project) -> str:
        status = project.status()
        plugin = plugin_for(self.config, status.deliverable_type)
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
