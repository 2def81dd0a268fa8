"""The MCP tools, one function each, over `tools.Tools` (which calls `actions`): their names,
descriptions (the docstrings) and parameters (the signatures, with their limits) are what the
agent sees, and their hints (`tool_hints`) what a host decides from without reading them.
`transports.build_server` registers every function in `TOOLS`, so adding a tool is writing its
function here and naming it in the table (and in `tool_hints` when it reads, undoes or repeats).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Resolve
from pydantic import Field

from thoughtforge.bounded_input import MAX_MESSAGE_CHARS
from thoughtforge.catalogue import HaltChoice
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.mcp_server.answers import (
    MAX_WAIT_SECONDS,
    Document,
    Message,
    PersonAnswer,
    Turn,
)
from thoughtforge.mcp_server.sdk_server import the_question

if TYPE_CHECKING:
    from thoughtforge.mcp_server.tools import Tools  # loaded at the first tool call

ProjectId = Annotated[
    str, Field(max_length=200, description="The project id (list_projects gives them).")
]
BrainDump = Annotated[
    str,
    Field(
        max_length=MAX_MESSAGE_CHARS,
        description="What the person wants made, in their words (or give brain_dump_file).",
    ),
]
MessageText = Annotated[
    str, Field(max_length=MAX_MESSAGE_CHARS, description="What to say, as the person would say it.")
]
ToDecide = Annotated[
    HaltChoice,
    Field(
        description="resume: go on as it was; override: accept the halted polish loop's "
        "deliverable, or build from a refused plan; terminate: end the project for good."
    ),
]
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
    message: MessageText,
    wait_seconds: WaitSeconds = 120,
) -> Turn:
    """Say something to the project: an answer, a correction, more of the brain dump. In
    Phases 3-4 it is guidance read at the next build step or polish iteration."""
    return tools.answer(project_id, "send", message, wait_seconds)


def distill(tools: Tools, project_id: ProjectId, wait_seconds: WaitSeconds = 120) -> Turn:
    """Phase 1: everything is said; distil it into the intent for review. Returns the
    distillation: confirm it, correct it with send_message, or edit it (read_draft, edit_draft)."""
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
    """Confirm the distilled intent (Phase 1; returns the spec proposal) or the spec proposal
    (Phase 2; the build and polish then run: project_status says when it is done)."""
    action = "accept_unresolved" if accept_unresolved else "confirm"
    return tools.answer(project_id, action, "", wait_seconds)


def decide(
    tools: Tools,
    project_id: ProjectId,
    decision: ToDecide,
    confirm_terminate: Annotated[
        bool, Field(description="Must be true for terminate: it ends the project for good.")
    ] = False,
    message: Annotated[
        str, Field(max_length=MAX_MESSAGE_CHARS, description="Optional guidance with the decision.")
    ] = "",
    budget_usd: Annotated[
        float | None,
        Field(
            gt=0,
            le=1_000_000,
            description="On a budget_exhausted halt: the project's new budget in dollars, set "
            "before the decision (spend shows what was spent).",
        ),
    ] = None,
    wait_seconds: WaitSeconds = 30,
) -> Turn:
    """Decide a halted project (project_status gives its halt_reason and actions_now): resume
    it, override, or terminate it (needs confirm_terminate); a budget halt is resumed with a
    higher budget_usd."""
    return tools.decide(project_id, decision, confirm_terminate, message, wait_seconds, budget_usd)


def provide_input(
    tools: Tools, project_id: ProjectId, message: MessageText, wait_seconds: WaitSeconds = 30
) -> Turn:
    """Phase 3: give a stuck build the input it asked for."""
    return tools.answer(project_id, "provide_input", message, wait_seconds)


def continue_project(tools: Tools, project_id: ProjectId) -> Turn:
    """Start a run of a project nothing works on, from where its files say it stopped."""
    return tools.answer(project_id, "start", "", 0)


def revise(
    tools: Tools,
    project_id: ProjectId,
    change: Annotated[
        str,
        Field(
            max_length=MAX_MESSAGE_CHARS,
            description="What should change in the deliverable, in the person's words.",
        ),
    ],
    wait_seconds: WaitSeconds = 120,
) -> Turn:
    """Ask for a change to a done (or halted) project: back to Phase 2 with its current spec
    and this change request. Returns the revised spec proposal: confirm it as usual, then
    only what the change touches is rebuilt and polished (revision 2, 3, ...)."""
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
    document: Annotated[Document, Field(description="Which document to read.")] = "deliverable",
) -> str:
    """The project's deliverable, spec, constraints, polish log or traceability (Markdown)."""
    return tools.read_document(project_id, document)


def read_polish_record(tools: Tools, project_id: ProjectId) -> dict[str, Any]:
    """Phase 4's record: the trajectory (issues by severity per iteration) and each
    iteration's issues, fixes, guards and verdict."""
    return tools.read_polish_record(project_id)


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
    return tools.spend(project_id, budget_usd, budget_tokens)


def read_draft(tools: Tools, project_id: ProjectId) -> dict[str, str]:
    """The draft a confirm would lock now (the Phase 1 distillation or the Phase 2 spec
    proposal): its kind, text and version (what edit_draft takes)."""
    return tools.read_draft(project_id)


def edit_draft(
    tools: Tools,
    project_id: ProjectId,
    text: Annotated[
        str,
        Field(
            max_length=MAX_MESSAGE_CHARS,
            description="The whole edited draft (Markdown, its sections kept).",
        ),
    ],
    version: Annotated[
        str, Field(max_length=64, description="The version read_draft gave for the draft.")
    ],
    confirm: Annotated[
        bool, Field(description="Confirm the edited draft too (else it is only saved).")
    ] = False,
    wait_seconds: WaitSeconds = 120,
) -> Turn:
    """Replace the AI's draft with the person's edit, checked as the AI's draft is (refused
    with what is wrong, or when the draft changed since read_draft); with confirm, confirm it
    and return the AI's next reply."""
    return tools.edit_draft(project_id, text, version, confirm, wait_seconds)


def ask_person(
    tools: Tools,
    project_id: ProjectId,
    answer: Annotated[ElicitationResult[PersonAnswer], Resolve(the_question)],
    wait_seconds: WaitSeconds = 120,
) -> Turn:
    """Have your host ask the person ThoughtForge's question in its own UI (a draft to
    confirm or correct, a halt to decide), and take their answer into the same run; returns
    the AI's reply. For clients that can ask the person (elicitation); otherwise relay it."""
    if not isinstance(answer, AcceptedElicitation):
        raise ThoughtForgeError(
            f"the person did not answer ({answer.action}): nothing was sent to {project_id}"
        )
    return tools.take_person_answer(project_id, answer.data, wait_seconds)


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
    spend,
    read_draft,
    edit_draft,
    ask_person,
)
