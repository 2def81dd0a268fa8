"""A thread as the page renders it (golden HTML), and untrusted text rendered inert."""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime
from pathlib import Path

from thoughtforge.actions.thread import Thread
from thoughtforge.core.state import ChatMessage
from thoughtforge.models import Phase
from thoughtforge.web.app import HERE
from thoughtforge.web.thread import PAGE_SIZE, newest_page_start, views

GOLDEN = Path(__file__).parent / "golden" / "thread.html"
AT = datetime(2026, 11, 23, 14, 5, tzinfo=UTC)
HOSTILE = (
    "<script>alert('x')</script> <img src=x onerror=alert(1)> "
    "[click](javascript:alert(2)) [data](data:text/html;base64,PHNjcmlwdD4=) </title>"
)
CHAT = [
    ChatMessage(
        role="human",
        content="We marry on **June 14th**.",
        phase=Phase.BRAIN_DUMP,
        timestamp=AT,
        read_by="distillation 1",
    ),
    ChatMessage(
        role="ai",
        content="## Objective\n\nA wedding for 60.\n\n| item | cost |\n| --- | --- |\n"
        "| venue | 5k |",
        phase=Phase.DISTILLING,
        timestamp=AT,
    ),
    ChatMessage(role="human", content="Realign from here.", phase=Phase.HUMAN_REVIEW, timestamp=AT),
    ChatMessage(
        role="system",
        content="File 'notes.md' added to resources/.",
        phase=Phase.HUMAN_REVIEW,
        timestamp=AT,
    ),
    ChatMessage(role="ai", content=HOSTILE, phase=Phase.SPEC_BUILDING, timestamp=AT),
]


def _render() -> str:
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    env = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape())
    return env.get_template("messages.html").render(messages=views(Thread(CHAT), 0))


def test_the_thread_matches_its_golden_page() -> None:
    html = _render()
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.write_text(html)
    assert html == GOLDEN.read_text()


def test_a_read_message_says_where_and_each_ai_message_can_be_copied() -> None:
    html = _render()
    assert html.count('<span class="read">read at distillation 1</span>') == 1
    assert html.count('<span class="read" hidden></span>') == 1  # the realign: not read yet
    assert html.count('class="copy"') == 2  # the two AI messages, not the person's or notices


def test_each_message_has_its_role_phase_and_time_and_realign_is_marked() -> None:
    html = _render()
    roles = re.findall(r'class="message (\w+)', html)
    assert roles == ["human", "ai", "human", "system", "ai"]
    assert "Phase 1 · brain dump" in html and "Phase 2 · spec" in html
    assert html.count("realign point") == 1
    assert '<time datetime="2026-11-23T14:05:00+00:00">Nov 23 14:05</time>' in html
    assert "<table>" in html and "<h2>Objective</h2>" in html  # Markdown is rendered


def test_untrusted_text_is_rendered_inert() -> None:
    html = _render()
    assert "<script" not in html and "<img" not in html
    assert "onerror=alert(1)&gt;" in html  # shown as text
    assert 'href="javascript:' not in html and 'href="data:' not in html
    assert "&lt;/title&gt;" in html


def test_a_long_thread_opens_at_its_newest_page() -> None:
    assert newest_page_start(2000) == 2000 - PAGE_SIZE
    assert newest_page_start(10) == 0
    page = views(Thread(CHAT * 400), newest_page_start(2000))
    assert [v.index for v in page] == list(range(1800, 2000))
