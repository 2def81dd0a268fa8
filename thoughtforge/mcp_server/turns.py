"""The MCP tools that answer a project as the person would: a chat turn, a confirm, a decision,
an edited draft, or the person's own answer through the host (`ask_person`), each taken as the
page takes it (`Tools.answer`, over `actions.answering` and `actions.draft`), then the AI's
reply when it comes within `wait_seconds`. Each is defined once: its signature and docstring
are what the agent sees, its `@tool` what a host decides from, its body the call."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Resolve
from pydantic import Field

from thoughtforge.bounded_input import MAX_MESSAGE_CHARS
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.mcp_server.sdk_server import the_question
from thoughtforge.mcp_server.tool_hints import tool
from thoughtforge.mcp_server.tool_types import (
    PersonAnswer,
    ProjectId,
    ToDecide,
    Turn,
    WaitSeconds,
)

if TYPE_CHECKING:
    from thoughtforge.mcp_server.tools import Tools  # loaded at the first tool call


@tool()
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


@tool(undoes=True)
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


@tool(reads=True)
def read_draft(tools: Tools, project_id: ProjectId) -> dict[str, str]:
    """The draft a confirm would lock now (the Phase 1 distillation or the Phase 2 spec
    proposal): its kind, text and version (what edit_draft takes)."""
    from thoughtforge.actions.draft import draft_to_edit

    draft = draft_to_edit(tools.project(project_id))
    return {"kind": draft.kind, "version": draft.version, "text": draft.text}


@tool(undoes=True)
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
    from thoughtforge.actions.draft import DraftEdit

    edit = DraftEdit(text=text, version=version, confirm=confirm)
    return tools.answer(project_id, "confirm", "", wait_seconds, edit=edit)


@tool()
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
