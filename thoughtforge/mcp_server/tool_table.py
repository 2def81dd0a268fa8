"""The MCP tools, in the order the agent sees them: each defined once in its module
(`project_tools` a project as a whole, `turns` answering it as the person would, `documents`
what it made), its name, description (the docstring) and parameters (the signature, with their
limits) what the agent sees, its `@tool` the annotations a host decides from
(`tool_hints.HINTS`), its body what it does. `transports.build_server` registers every
function in `TOOLS`, so adding a tool is writing its function and naming it here.
"""

from __future__ import annotations

from thoughtforge.mcp_server import documents, project_tools, turns

TOOLS = (
    project_tools.create_project,
    project_tools.list_projects,
    project_tools.archive_project,
    project_tools.unarchive_project,
    project_tools.project_status,
    project_tools.read_thread,
    turns.send_message,
    turns.distill,
    turns.realign,
    turns.confirm,
    turns.decide,
    turns.provide_input,
    turns.continue_project,
    turns.revise,
    project_tools.history,
    project_tools.rollback,
    documents.read_document,
    documents.read_polish_record,
    project_tools.spend,
    turns.read_draft,
    turns.edit_draft,
    turns.ask_person,
)
