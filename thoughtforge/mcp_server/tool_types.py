"""What the MCP tools take and answer, as the agent sees them (their parameters' types, with
their limits and descriptions): kept apart from `tools` (which loads the pipeline's actions) so
the server lists its tools without loading what only a tool call needs."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from thoughtforge.bounded_input import MAX_MESSAGE_CHARS
from thoughtforge.catalogue import HaltChoice

MAX_WAIT_SECONDS = 600.0
RESOURCE_URI = "thoughtforge://projects/{project_id}/{document}"
Document = Literal["deliverable", "spec", "constraints", "polish-log", "traceability"]

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


class Message(BaseModel):
    role: str
    phase: str
    time: str
    content: str


class Turn(BaseModel):
    """What became of an answer, the AI's reply if it came, and what the project waits for now."""

    delivery: str
    note: str
    replies: list[Message] = []
    reply_complete: bool = False
    """False when `wait_seconds` ran out first (the reply may still come: read_thread)."""
    now: str


class PersonAnswer(BaseModel):
    """What the person answers when the host asks them ThoughtForge's question (`ask_person`)."""

    action: Literal["confirm", "correct", "resume", "override", "terminate"]
    """confirm a draft; correct it (say what in `message`); or decide a halt."""
    message: str = ""
