"""The MCP tools, one function each, over `tools.Tools` (which calls `actions`): their names,
descriptions (the docstrings) and parameters (the signatures, with their limits) are what the
agent sees. `transports.build_server` registers every function in `TOOLS`, so adding a tool is
writing its function here and naming it in the table.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from thoughtforge.mcp_server.tools import (
    DOCUMENTS,
    MAX_TEXT_CHARS,
    MAX_WAIT_SECONDS,
    Decision,
    Message,
    Tools,
    Turn,
)

ProjectId = Annotated[
    str, Field(max_length=200, description="The project id (list_projects gives them).")
]
Text = Annotated[str, Field(max_length=MAX_TEXT_CHARS)]
WaitSeconds = Annotated[
    float,
    Field(
        ge=0,
        le=MAX_WAIT_SECONDS,
        description="How long to wait for the AI's reply (0: do not wait).",
    ),
]


def create_project(
    tools: Tools,
    brain_dump: Text = "",
    brain_dump_file: Annotated[
        str, Field(max_length=4096, description="A file with the brain dump, on this machine.")
    ] = "",
    agent: Annotated[
        str | None, Field(max_length=100, description="An agent from agents.available.")
    ] = None,
    deliverable_type: Annotated[
        str, Field(max_length=40, description="A hint: plan or code (or a plugin's type).")
    ] = "",
    resources: Annotated[
        list[Annotated[str, Field(max_length=4096)]] | None,
        Field(max_length=50, description="Files on this machine for the project's resources/."),
    ] = None,
) -> dict[str, Any]:
    """Create a project from a brain dump (text, or a file) and start its run; it then waits
    for the person in Phase 1 (use distill when everything is said)."""
    return tools.create_project(brain_dump, brain_dump_file, agent, deliverable_type, resources)


def list_projects(
    tools: Tools,
    include_archived: Annotated[
        bool, Field(description="Also list the archived projects (marked archived).")
    ] = False,
) -> dict[str, Any]:
    """Every project but the archived ones, those waiting for the person first with what
    they wait for."""
    return tools.list_projects(include_archived)


def archive_project(tools: Tools, project_id: ProjectId) -> dict[str, Any]:
    """Archive a finished, terminated or halted project (a halted one is parked, its halt
    kept): out of the project list and the active count, its folder and history kept.
    Refused for a project in progress or one a run is working on."""
    return tools.archive(project_id)


def unarchive_project(tools: Tools, project_id: ProjectId) -> dict[str, Any]:
    """Bring an archived project back to the project list."""
    return tools.unarchive(project_id)


def project_status(tools: Tools, project_id: ProjectId) -> dict[str, Any]:
    """One project: its phase, where its run is and what it waits for, its halt, revision and
    open findings, and the actions it takes now."""
    return tools.project_status(project_id)


def read_thread(
    tools: Tools,
    project_id: ProjectId,
    last: Annotated[int, Field(ge=1, le=500, description="How many messages.")] = 20,
) -> list[Message]:
    """The project's last messages (the person's, the AI's, notices), oldest first."""
    return tools.read_thread(project_id, last)


def send_message(
    tools: Tools,
    project_id: ProjectId,
    message: Text,
    wait_seconds: WaitSeconds = 120,
) -> Turn:
    """Say something to the project: an answer, a correction, more of the brain dump. In
    Phases 3-4 it is guidance read at the next build step or polish iteration."""
    return tools.answer(project_id, "send", message, wait_seconds)


def distill(tools: Tools, project_id: ProjectId, wait_seconds: WaitSeconds = 120) -> Turn:
    """Phase 1: everything is said; distil it into the intent for review."""
    return tools.answer(project_id, "distill", "", wait_seconds)


def realign(tools: Tools, project_id: ProjectId, wait_seconds: WaitSeconds = 120) -> Turn:
    """Phase 1: drop the messages after the last real correction and distil again."""
    return tools.answer(project_id, "realign", "", wait_seconds)


def confirm(
    tools: Tools,
    project_id: ProjectId,
    accept_unresolved: Annotated[
        bool, Field(description="Phase 2: lock the spec with its open items as unresolved.")
    ] = False,
    wait_seconds: WaitSeconds = 120,
) -> Turn:
    """Confirm the distilled intent (Phase 1) or the spec proposal (Phase 2)."""
    action = "accept_unresolved" if accept_unresolved else "confirm"
    return tools.answer(project_id, action, "", wait_seconds)


def decide(
    tools: Tools,
    project_id: ProjectId,
    decision: Decision,
    confirm_terminate: Annotated[
        bool, Field(description="Must be true for terminate: it ends the project for good.")
    ] = False,
    message: Text = "",
    wait_seconds: WaitSeconds = 30,
) -> Turn:
    """Decide a halted project: resume it, override (accept a halted polish loop's
    deliverable, or build from a refused plan), or terminate it (any step; needs
    confirm_terminate)."""
    return tools.decide(project_id, decision, confirm_terminate, message, wait_seconds)


def provide_input(
    tools: Tools, project_id: ProjectId, message: Text, wait_seconds: WaitSeconds = 30
) -> Turn:
    """Phase 3: give a stuck build the input it asked for."""
    return tools.answer(project_id, "provide_input", message, wait_seconds)


def continue_project(tools: Tools, project_id: ProjectId) -> Turn:
    """Start a run of a project nothing works on, from where its files say it stopped."""
    return tools.answer(project_id, "start", "", 0)


def revise(
    tools: Tools, project_id: ProjectId, change: Text, wait_seconds: WaitSeconds = 120
) -> Turn:
    """Ask for a change to a done (or halted) project: back to Phase 2 with its current spec
    and this change request; the agent proposes the revised spec (confirm it as usual),
    then only what the change touches is rebuilt and polished (revision 2, 3, ...)."""
    return tools.answer(project_id, "revise", change, wait_seconds)


def history(tools: Tools, project_id: ProjectId) -> list[dict[str, Any]]:
    """The project's phase ends, polish iterations and commits, oldest first, with what each
    was; a `name` (or commit id) is what `rollback` takes."""
    return tools.history(project_id)


def rollback(
    tools: Tools,
    project_id: ProjectId,
    to: Annotated[str, Field(max_length=200, description="A name from `history`, or a commit id.")],
    keep_edits: Annotated[
        bool, Field(description="Commit uncommitted edits of the files first, as the person's.")
    ] = False,
) -> dict[str, str]:
    """Restore the project's files to a phase end, polish iteration or commit with a new
    commit (history is kept) and set its phase and polish state to match; refused while a
    run works on the project, and over uncommitted edits unless keep_edits."""
    return tools.rollback(project_id, to, keep_edits)


def read_document(
    tools: Tools,
    project_id: ProjectId,
    document: Annotated[
        str,
        Field(
            max_length=40,
            description=f"deliverable, {', '.join(DOCUMENTS)}",
        ),
    ] = "deliverable",
) -> str:
    """The project's deliverable, spec, constraints, polish log or traceability (Markdown)."""
    return tools.read_document(project_id, document)


def read_polish_record(tools: Tools, project_id: ProjectId) -> dict[str, Any]:
    """Phase 4's record: the trajectory (issues by severity per iteration) and each
    iteration's issues, fixes, guards and verdict."""
    return tools.read_polish_record(project_id)


TOOLS = (
    create_project,
    list_projects,
    archive_project,
    unarchive_project,
    project_status,
    read_thread,
    send_message,
    distill,
    realign,
    confirm,
    decide,
    provide_input,
    continue_project,
    revise,
    history,
    rollback,
    read_document,
    read_polish_record,
)
