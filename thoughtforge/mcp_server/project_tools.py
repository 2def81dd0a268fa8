"""The MCP tools over a project as a whole: create, list, archive, its status and thread, its
spend, its history and a rollback. Each is defined once: its signature and docstring are what the
agent sees, its `@tool` what a host decides from, its body the call into `actions` (the
functions the page and the CLI call, so a tool refuses what the page refuses, in its words).

What a tool loads is loaded at its first call, not when the tools are listed."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from thoughtforge.bounded_input import read_capped
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.mcp_server.agent_words import for_agent
from thoughtforge.mcp_server.answers import RESOURCE_URI, BrainDump, Message, ProjectId
from thoughtforge.mcp_server.tool_hints import tool

if TYPE_CHECKING:
    from thoughtforge.actions.starting import DroppedFile
    from thoughtforge.mcp_server.tools import Tools  # loaded at the first tool call


@tool()
def create_project(
    tools: Tools,
    brain_dump: BrainDump = "",
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
    for the person in Phase 1: send_message to add or answer, distill when everything is
    said."""
    from thoughtforge.actions.process_run import start_project_run
    from thoughtforge.actions.starting import NewProject, create_from_request
    from thoughtforge.core.creation import brain_dump_text

    if bool(brain_dump.strip()) == bool(brain_dump_file):
        raise ThoughtForgeError("give the brain dump as text or as a file, one of the two")
    text = brain_dump_text(brain_dump, brain_dump_file)
    if not text.strip():
        raise ThoughtForgeError("the brain dump is empty: say what you want made")
    files = [_resource(tools, Path(path)) for path in resources or []]
    request = NewProject(
        brain_dump=text, agent=agent, deliverable_type=deliverable_type, files=files
    )
    project = create_from_request(tools.config, request)
    started = start_project_run(tools.config, tools.config_file, project)
    return {
        "project_id": project.id,
        "folder": str(project.dir),
        "note": for_agent(started.note),
        "next": "send_message to add to the brain dump or answer the AI's questions, "
        "distill when everything is said",
    }


@tool(reads=True)
def list_projects(
    tools: Tools,
    include_archived: Annotated[
        bool, Field(description="Also list the archived projects (marked archived).")
    ] = False,
) -> dict[str, Any]:
    """Every project but the archived ones, those waiting for the person first with what
    they wait for."""
    from thoughtforge.actions.documents import DOCUMENTS
    from thoughtforge.actions.inbox import inbox

    box = inbox(tools.config)
    return {
        "projects": [
            {
                **_in_agent_words(entry.model_dump(mode="json", exclude_none=True)),
                "resources": [
                    RESOURCE_URI.format(project_id=entry.project_id, document=name)
                    for name in ("deliverable", *DOCUMENTS)
                ],
            }
            for entry in (box.entries if include_archived else box.listed)
        ],
        "active": f"{box.active}/{box.limit}",
        "full": box.full,
    }


@tool(repeatable=True, local=True)
def archive_project(tools: Tools, project_id: ProjectId) -> dict[str, Any]:
    """Archive a finished, terminated or halted project (a halted one is parked, its halt
    kept): out of the project list and the active count, its folder and history kept.
    Refused for a project in progress or one a run is working on."""
    from thoughtforge.actions.archiving import archive_project as archive

    status = archive(tools.config, tools.project(project_id))
    return {"project_id": project_id, "phase": status.phase.value, "archived": True}


@tool(repeatable=True, local=True)
def unarchive_project(tools: Tools, project_id: ProjectId) -> dict[str, Any]:
    """Bring an archived project back to the project list."""
    from thoughtforge.actions.archiving import unarchive_project as unarchive

    status = unarchive(tools.project(project_id))
    return {"project_id": project_id, "phase": status.phase.value, "archived": False}


@tool(reads=True)
def project_status(tools: Tools, project_id: ProjectId) -> dict[str, Any]:
    """One project: its phase, where its run is and what it waits for, its halt, revision and
    open findings, and the actions it takes now."""
    from thoughtforge.actions.project_page import project_page

    page = project_page(tools.config, tools.project(project_id))
    status = page.status
    return {
        "project_id": page.project.id,
        "name": status.project_name or page.project.id,
        "phase": status.phase.value,
        "run": page.run.value,
        "waits_for": for_agent(page.waits_for) if page.waits_for else None,
        "halt_reason": status.halt_reason,
        "deliverable_type": status.deliverable_type,
        "agent": status.agent,
        "archived": status.archived_at is not None,
        "revision": page.revision,
        "open_findings": page.view.open_findings,
        "actions_now": [action.name for action in page.composer.actions],
        "note": for_agent(page.composer.note),
    }


@tool(reads=True)
def read_thread(
    tools: Tools,
    project_id: ProjectId,
    last: Annotated[int, Field(ge=1, le=500, description="How many messages.")] = 20,
) -> list[Message]:
    """The project's last messages (the person's, the AI's, notices), oldest first."""
    from thoughtforge.actions.thread import project_thread
    from thoughtforge.mcp_server.tools import message_of

    thread = project_thread(tools.project(project_id))
    return [message_of(message) for message in thread.messages(len(thread) - last)]


@tool(repeatable=True, local=True)
def spend(
    tools: Tools,
    project_id: ProjectId,
    budget_usd: Annotated[
        float | None,
        Field(gt=0, le=1_000_000, description="Set the project's own budget in dollars."),
    ] = None,
    budget_tokens: Annotated[
        int | None, Field(gt=0, description="Set the project's own budget in tokens.")
    ] = None,
) -> dict[str, Any]:
    """What a project spent (per phase and polish iteration) and its budget; with budget_usd
    or budget_tokens, its own budget is set first. A run halted on its budget goes on with
    decide (resume, with budget_usd)."""
    from thoughtforge.core.spend.summary import change_budget, spend_of

    project = tools.project(project_id)
    warning = None
    if budget_usd is not None or budget_tokens is not None:
        summary, warning = change_budget(tools.config, project, budget_usd, budget_tokens)
    else:
        summary = spend_of(tools.config, project)
    if summary.error is not None:
        raise ThoughtForgeError(summary.error)
    answer: dict[str, Any] = {
        "spent": summary.line,
        "spent_usd": summary.total.usd,
        "spent_tokens": summary.total.tokens,
        "budget_usd": summary.budget.max_usd,
        "budget_tokens": summary.budget.max_tokens,
        "budget_from": "the project's own" if summary.own_budget else "config.yaml (budget)",
        "breakdown": dict(summary.breakdown()),
    }
    if warning:
        answer["warning"] = warning
    return answer


@tool(reads=True)
def history(tools: Tools, project_id: ProjectId) -> list[dict[str, Any]]:
    """The project's phase ends, polish iterations and commits, oldest first, with what each
    was; a `name` (or commit id) is what `rollback` takes."""
    from thoughtforge.actions.history import history as project_history

    return [
        {
            "name": item.name,
            "commit": item.short,
            "revision": item.revision,
            "time": f"{item.when:%Y-%m-%d %H:%M} UTC",
            "what": item.what,
        }
        for item in project_history(tools.project(project_id))
    ]


@tool(undoes=True, local=True)
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
    from thoughtforge.actions.restoring import restore

    restored = restore(tools.project(project_id), to, keep_edits=keep_edits)
    return {"restored": restored.label, "phase": restored.phase.value, "note": restored.note}


def _resource(tools: Tools, path: Path) -> DroppedFile:
    """A file given as a resource: a regular file (no link) within the size cap."""
    from thoughtforge.actions.starting import DroppedFile
    from thoughtforge.core.links import refuse_links

    refuse_links(path)
    data = read_capped(path, tools.config.resources.max_file_bytes, "resource")
    return DroppedFile(name=path.name, data=data)


def _in_agent_words(entry: dict[str, Any]) -> dict[str, Any]:
    """An inbox entry with its waits-for text naming tools, not the page's buttons."""
    if isinstance(entry.get("waits_for"), str):
        entry["waits_for"] = for_agent(entry["waits_for"])
    return entry
