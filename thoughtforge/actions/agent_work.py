"""What a live run's agent is doing now, as a door says it: "The AI is working: Distilling your
brain dump, 12 s", and the end of the answer it is writing."""

from __future__ import annotations

from pydantic import BaseModel

from thoughtforge.board.words import step_words
from thoughtforge.core.agent_activity import call_in_flight, streamed_text
from thoughtforge.core.project import Project
from thoughtforge.core.run_lock import is_running
from thoughtforge.core.state import utc_now

STREAM_TAIL_CHARS = 4000
"""How much of an answer being written a door shows (its end)."""


class AgentWork(BaseModel):
    line: str
    step: str
    streamed: str
    """The end of the answer so far, as the agent streams it (untrusted text)."""


def agent_work(project: Project) -> AgentWork | None:
    """The agent call in flight, while a live run makes one; else None."""
    activity = call_in_flight(project.dir)
    if activity is None or not is_running(project):
        return None
    seconds = max(0, int((utc_now() - activity.started_at).total_seconds()))
    attempt = f" (attempt {activity.attempt})" if activity.attempt > 1 else ""
    step = step_words(activity.step)
    return AgentWork(
        line=f"The AI is working: {step}{attempt}, {seconds} s",
        step=step,
        streamed=streamed_text(project.dir)[-STREAM_TAIL_CHARS:],
    )
