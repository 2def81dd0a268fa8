"""The live stream a page listens to: new messages, phase changes, the AI at work and its answer
as it streams, the inbox; and a reconnecting page gets exactly what it missed."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import pytest

from tests.phases.conftest import distillation
from tests.web.conftest import TOKEN, Bench
from thoughtforge.core.agent_activity import AgentActivity, begin_call, stream_output
from thoughtforge.core.creation import create_project
from thoughtforge.core.project import Project
from thoughtforge.core.run_lock import hold_run_lock
from thoughtforge.core.state import ChatMessage, append_chat, read_chat, utc_now
from thoughtforge.core.transition import transition
from thoughtforge.models import Phase
from thoughtforge.phases import add_human_message

Event = tuple[str, dict[str, str]]


def _listen(
    bench: Bench,
    query: str,
    until: Callable[[list[Event]], bool],
    on_hello: Callable[[], None] = lambda: None,
) -> list[Event]:
    """Read the stream until `until(events)`; `on_hello` runs once the stream is open."""
    events: list[Event] = []
    name = ""
    with httpx.stream("GET", f"{bench.url}/events?{query}", timeout=30) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        for line in response.iter_lines():
            if line.startswith("event: "):
                name = line.removeprefix("event: ")
            elif line.startswith("data: "):
                events.append((name, json.loads(line.removeprefix("data: "))))
                if name == "hello":
                    on_hello()
                if until(events):
                    return events
    raise AssertionError(f"the stream ended early: {events}")


def _named(events: list[Event], name: str) -> list[dict[str, str]]:
    return [data for event, data in events if event == name]


@pytest.fixture
def project(bench: Bench) -> Project:
    return create_project(bench.config, brain_dump="Plan a wedding for sixty in June.")


def test_the_stream_opens_with_the_token_and_brings_a_new_message(
    bench: Bench, project: Project
) -> None:
    events = _listen(
        bench,
        f"project={project.id}&after=1",
        until=lambda got: bool(_named(got, "message")),
        on_hello=lambda: add_human_message(project, "The venue is a <b>barn</b>."),
    )
    assert _named(events, "hello") == [{"token": TOKEN}]
    [message] = _named(events, "message")
    assert message["index"] == 1
    assert "The venue is a &lt;b&gt;barn&lt;/b&gt;." in message["html"]
    assert 'class="message human"' in message["html"]


def test_a_reconnecting_page_gets_exactly_the_messages_it_missed(
    bench: Bench, project: Project
) -> None:
    for text in ("one", "two"):
        add_human_message(project, text)
    assert len(read_chat(project.dir)) == 3

    def indices(after: int) -> list[int]:
        events = _listen(bench, f"project={project.id}&after={after}", until=_has_state)
        return [int(m["index"]) for m in _named(events, "message")]

    assert indices(0) == [0, 1, 2]
    assert indices(2) == [2]
    assert indices(3) == []


def _has_state(events: list[Event]) -> bool:
    return bool(_named(events, "state"))


def test_a_phase_change_redraws_the_header_and_the_actions(bench: Bench, project: Project) -> None:
    def move() -> None:
        transition(project, Phase.DISTILLING)
        transition(project, Phase.HUMAN_REVIEW, project_name="June Wedding")

    events = _listen(
        bench,
        f"project={project.id}&after=1",
        until=lambda got: any("June Wedding" in s["header"] for s in _named(got, "state")),
        on_hello=move,
    )
    state = _named(events, "state")[-1]
    header = state["header"]
    assert "Phase 1 · Reviewing the distillation" in header and ">human_review" not in header
    # the sidebar and the deliverable pane's head come in the same event, from the same state
    assert "June Wedding" in state["sidebar"]
    assert "Phase 1 · Reviewing the distillation" in state["sidebar"]
    assert "Your intent (draft)" in state["pane"]


def test_a_new_draft_redraws_the_deliverable_pane(bench: Bench, project: Project) -> None:
    transition(project, Phase.DISTILLING)
    transition(project, Phase.HUMAN_REVIEW)

    def distil() -> None:
        draft = distillation(objective="A barn wedding for <b>eighty</b>.")
        append_chat(project.dir, ChatMessage(role="ai", content=draft, phase=Phase.HUMAN_REVIEW))

    events = _listen(
        bench,
        f"project={project.id}&after=1",
        until=lambda got: any("eighty" in p["html"] for p in _named(got, "panel")),
        on_hello=distil,
    )
    pane = _named(events, "panel")[-1]["html"]
    assert 'class="draft-view" aria-label="The distillation"' in pane
    assert "A barn wedding for &lt;b&gt;eighty&lt;/b&gt;." in pane  # inert


def test_the_ai_at_work_and_its_answer_so_far_are_shown(bench: Bench, project: Project) -> None:
    with hold_run_lock(project):
        begin_call(
            project.dir,
            AgentActivity(
                agent="demo",
                step="brain-dump-intake",
                phase="distilling",
                attempt=1,
                started_at=utc_now(),
            ),
        )
        stream_output(project.dir, b"## Objective\n\nA <i>wedding</i>")
        events = _listen(
            bench,
            f"project={project.id}&after=1",
            until=lambda got: any("working" in s["work"] for s in _named(got, "state")),
        )
    work = next(s["work"] for s in _named(events, "state") if "working" in s["work"])
    assert "The AI is working: Distilling your brain dump, " in work
    assert "brain-dump-intake" not in work  # the step's readable name, not its id
    assert "<h2>Objective</h2>" in work  # rendered as Markdown, as the answer will be
    assert "A &lt;i&gt;wedding&lt;/i&gt;" in work and "<i>" not in work  # inert
    actions = _named(events, "state")[-1]["actions"]
    assert 'data-action="send"' in actions and 'data-action="start"' not in actions
    pane = next(s["pane"] for s in _named(events, "state") if "working" in s["work"])
    assert "Now: Distilling your brain dump</p>" in pane  # the step, without a ticking clock


def test_the_inbox_follows_new_projects(bench: Bench, project: Project) -> None:
    events = _listen(
        bench,
        "",
        until=lambda got: len(_named(got, "inbox")) >= 2,
        on_hello=lambda: create_project(bench.config, brain_dump="A second brain dump."),
    )
    first, second = _named(events, "inbox")[:2]
    assert first["html"].count("data-project-id") == 1
    assert second["html"].count("data-project-id") == 2


def test_the_board_page_follows_a_phase_change(bench: Bench, project: Project) -> None:
    def moved(got: list[Event]) -> bool:
        columns = [_column_of(board["html"], project) for board in _named(got, "board")]
        if columns == ["brain_dump"] and project.status().phase is Phase.BRAIN_DUMP:
            transition(project, Phase.DISTILLING)  # once the page has drawn the first board
        return columns[-1:] == ["distilling"]

    events = _listen(bench, "view=board", until=moved)
    assert [_column_of(b["html"], project) for b in _named(events, "board")] == [
        "brain_dump",
        "distilling",
    ]


def _column_of(board: str, project: Project) -> str:
    before = board.split(f'data-project-id="{project.id}"', 1)[0]
    return before.rsplit('data-column="', 1)[1].split('"', 1)[0]
