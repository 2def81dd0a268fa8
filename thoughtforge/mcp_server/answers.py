"""What the MCP tools take and answer, as the agent sees them: kept apart from `tools` (which
loads the pipeline's actions) so the server lists its tools without loading what only a tool
call needs."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

MAX_WAIT_SECONDS = 600.0
RESOURCE_URI = "thoughtforge://projects/{project_id}/{document}"
Document = Literal["deliverable", "spec", "constraints", "polish-log", "traceability"]


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
