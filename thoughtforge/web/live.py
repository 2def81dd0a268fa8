"""What the live stream sends a page: the work line of a live run's agent call, rendered, and
each Server-Sent Event. What changed since the page last looked is `actions.live_stamps`'."""

from __future__ import annotations

import json
from datetime import datetime

from pydantic import BaseModel

from thoughtforge.actions.agent_work import agent_work
from thoughtforge.core.project import Project
from thoughtforge.web.thread import render_markdown


class WorkLine(BaseModel):
    """What the page shows while a live run calls an agent: "The AI is working: Distilling your
    brain dump, 12 s", and the answer so far, as rendered (inert) Markdown."""

    line: str
    step: str
    answer_html: str


def work_line(project: Project, now: datetime) -> WorkLine | None:
    work = agent_work(project, now)
    if work is None:
        return None
    return WorkLine(
        line=work.line,
        step=work.step,
        answer_html=render_markdown(work.streamed) if work.streamed.strip() else "",
    )


def sse(event: str, data: object, event_id: int | None = None) -> str:
    """One Server-Sent Event; the data is JSON on one line."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"
