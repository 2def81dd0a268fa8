"""The MCP tools that read what a project made: its deliverable and documents, and Phase 4's
record, as `actions.documents` reads them. Each is defined once: signature, docstring and
`@tool` are what the agent and its host see, the body the call into `actions`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from thoughtforge.mcp_server.tool_hints import tool
from thoughtforge.mcp_server.tool_types import Document, ProjectId

if TYPE_CHECKING:
    from thoughtforge.mcp_server.tools import Tools  # loaded at the first tool call


@tool(reads=True)
def read_document(
    tools: Tools,
    project_id: ProjectId,
    document: Annotated[Document, Field(description="Which document to read.")] = "deliverable",
) -> str:
    """The project's deliverable, spec, constraints, polish log or traceability (Markdown)."""
    from thoughtforge.actions.documents import read_document as read

    return read(tools.config, tools.project(project_id), document)


@tool(reads=True)
def read_polish_record(tools: Tools, project_id: ProjectId) -> dict[str, Any]:
    """Phase 4's record: the trajectory (issues by severity per iteration) and each
    iteration's issues, fixes, guards and verdict."""
    from thoughtforge.actions.documents import polish_record

    record = polish_record(tools.project(project_id))
    return {
        "trajectory": [entry.model_dump(mode="json") for entry in record.trajectory],
        "iterations": [
            {"title": entry.title, "verdict": entry.verdict, **entry.parts}
            for entry in record.iterations
        ],
        "problems": record.problems,
    }
