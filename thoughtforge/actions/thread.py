"""A project's thread as the doors read it: its messages, this phase's and the earlier phases',
each with its phase's label, whether it realigns the distillation, whether it is a draft the
person may edit, and where the person's words were read. The page renders these as inert HTML
(`web.thread`), a message's word-diff blocks marked as History marks a change (`marked_lines`);
MCP's `read_thread` and a tool's replies show them as they are (`actions.replying` waits for
them)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel

from thoughtforge.core.project import Project
from thoughtforge.core.state import ChatMessage, read_thread
from thoughtforge.core.word_diff import WORD_DIFF_FENCE as WORD_DIFF_FENCE
from thoughtforge.core.word_diff import Piece, marked_pieces
from thoughtforge.models import Phase
from thoughtforge.phases.chat import PHASE_LABELS
from thoughtforge.phases.draft_edits import is_draft
from thoughtforge.phases.intake import is_realign_command


class ThreadMessage(BaseModel):
    """One message of the thread, and what the doors say of it."""

    index: int
    role: str
    phase: Phase
    phase_label: str
    timestamp: datetime
    content: str
    realign: bool
    """The person's realign command: the messages before it were set aside."""
    read_by: str | None = None
    """Where the person's message was read ("distillation 3", "polish iteration 2")."""
    edited: bool = False
    """A draft of the AI's the person edited directly (`phases.draft_edits`)."""
    draft: bool = False
    """A distillation or spec proposal: the page offers Edit on it while Confirm is possible."""


class Thread:
    """The thread as read once; its messages described only for the stretch a door shows."""

    def __init__(self, chat: list[ChatMessage]) -> None:
        self.chat = chat

    def __len__(self) -> int:
        return len(self.chat)

    def messages(self, start: int, end: int | None = None) -> list[ThreadMessage]:
        """The messages from `start` (inclusive) to `end` (exclusive)."""
        end = len(self.chat) if end is None else min(end, len(self.chat))
        return [thread_message(i, self.chat[i]) for i in range(max(start, 0), end)]

    def read_marks(self) -> dict[int, str]:
        """Where each of the person's messages read so far was read, by index."""
        return {i: m.read_by for i, m in enumerate(self.chat) if m.role == "human" and m.read_by}


def project_thread(project: Project) -> Thread:
    return Thread(read_thread(project.dir))


def thread_message(index: int, message: ChatMessage) -> ThreadMessage:
    return ThreadMessage(
        index=index,
        role=message.role,
        phase=message.phase,
        phase_label=PHASE_LABELS[message.phase],
        timestamp=message.timestamp,
        content=message.content,
        realign=message.role == "human" and is_realign_command(message.content),
        read_by=message.read_by,
        edited=bool(message.edited),
        draft=is_draft(message),
    )


def marked_lines(block: str) -> list[list[Piece]]:
    """A message's `WORD_DIFF_FENCE` block read back, line by line, as its words kept, removed
    and added."""
    return [marked_pieces(line) for line in block.rstrip("\n").split("\n")]
