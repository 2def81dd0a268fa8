"""The MCP tools that read what a project made: its deliverable and documents, and Phase 4's
record, as `actions.documents` reads them."""

from __future__ import annotations

from typing import Any

from thoughtforge.actions.documents import polish_record, read_document
from thoughtforge.mcp_server.tool_base import ToolBase


class DocumentTools(ToolBase):
    def read_document(self, project_id: str, document: str) -> str:
        """A project's deliverable, spec, constraints, polish log or traceability, never through
        a link."""
        return read_document(self.config, self.project(project_id), document)

    def read_polish_record(self, project_id: str) -> dict[str, Any]:
        record = polish_record(self.project(project_id))
        return {
            "trajectory": [entry.model_dump(mode="json") for entry in record.trajectory],
            "iterations": [
                {"title": entry.title, "verdict": entry.verdict, **entry.parts}
                for entry in record.iterations
            ],
            "problems": record.problems,
        }
