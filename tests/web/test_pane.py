"""The deliverable pane as the page renders it (golden HTML): a spec draft with its open items,
a build with its step in progress; and each phase's head in a person's words."""

from __future__ import annotations

import os
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape

from thoughtforge.core.build_progress import ProgressItem
from thoughtforge.models import Phase
from thoughtforge.web.app import HERE
from thoughtforge.web.pane import DraftView, pane_head
from thoughtforge.web.progress import Panel
from thoughtforge.web.thread import render_markdown

GOLDEN = Path(__file__).parent / "golden" / "pane.html"


def _render(panel: Panel) -> str:
    env = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape())
    return env.get_template("panel.html").render(panel=panel)


def _panels() -> str:
    text = "## Deliverable Overview\nA plan for <b>sixty</b>.\n"
    draft = DraftView(
        kind="spec proposal",
        text=text,
        html=render_markdown(text),
        open_items=["Exact date in June", "Is the budget <per person>?"],
    )
    build = [
        ProgressItem(label="Venue", done=True, detail="written"),
        ProgressItem(label="Budget", done=False, detail="2 of 3 slots"),
        ProgressItem(label="Rain plan", done=False),
    ]
    return _render(Panel(final=False, draft=draft)) + _render(
        Panel(final=False, build=build, in_progress=1)
    )


def test_the_pane_matches_its_golden_page() -> None:
    html = _panels()
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.write_text(html)
    assert html == GOLDEN.read_text()


def test_the_draft_is_inert_and_its_open_items_counted() -> None:
    html = _panels()
    assert "<b>" not in html and "&lt;per person&gt;" in html
    assert "<h3>2 open items</h3>" in html
    assert html.count('aria-current="step"') == 1 and "Budget <span" in html


def test_every_phase_has_a_head_and_none_names_an_enum() -> None:
    for phase in Phase:
        head = pane_head(phase)
        assert head.title and head.note
        assert "_" not in head.title + head.note, phase
    early = pane_head(Phase.HALTED, Phase.DISTILLING)
    assert early.title == "Your intent" and early.note.startswith("Halted")
    assert pane_head(Phase.HALTED, Phase.BUILDING).title == "The deliverable so far"
