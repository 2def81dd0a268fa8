"""The project page's two panes in a real browser at a desktop (1300×900) and a phone (390×844)
size: the draft under review beside the conversation in Phase 1, the build with its step in
progress in Phase 3 (the sidebar changing in the same moment as the header), the deliverable and
what comes next above the fold at `done`; on the phone the panes are tabs, reached by keyboard,
and the one out of sight says when it changed. Every state checked with axe-core.

The page runs on a workbench without a Prefect server: the projects are set on disk at the
phase each check needs (what runs do is the stack tests' business; this is how the page shows it).
Headless Debian Chromium driven by Playwright; a screenshot of each check in `test-artifacts/web/`.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.build_setup import building_project
from tests.phases.conftest import distillation, under_review
from tests.phases.test_spec import proposal, say_ai, spec_building_project
from tests.web.conftest import SIZES, WAIT_MS, Bench
from tests.web.test_browser_chat import _accessible as accessible  # axe, as every page
from thoughtforge.core.agent_activity import AgentActivity, begin_call
from thoughtforge.core.archive import archive
from thoughtforge.core.atomic_write import write_text_atomic
from thoughtforge.core.build_progress import BuildProgress, ProgressItem
from thoughtforge.core.project import Project
from thoughtforge.core.run_lock import hold_run_lock
from thoughtforge.core.state import (
    BUILD_PROGRESS_FILE,
    ChatMessage,
    PolishState,
    TrajectoryEntry,
    append_chat,
    read_status,
    utc_now,
    write_polish_state,
    write_status,
)
from thoughtforge.models import Counts, Phase

pytestmark = pytest.mark.slow
SHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"
SECTIONS = ("Site and foundation", "Frame and walls", "Roof", "Door and window", "Finish")


def _shot(page: Any, name: str) -> None:
    """What the person sees (the viewport), as they see it."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def _in_view(page: Any, selector: str) -> None:
    """The element's whole box is inside the viewport (no scrolling needed to reach it)."""
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    assert box is not None, f"{selector} is not shown"
    assert box["x"] >= 0 and box["y"] >= 0, (selector, box)
    assert box["x"] + box["width"] <= size["width"], (selector, box)
    assert box["y"] + box["height"] <= size["height"], (selector, box)


def _side_by_side(page: Any) -> None:
    chat = page.locator("#conversation").bounding_box()
    pane = page.locator("#deliverable").bounding_box()
    assert chat is not None and pane is not None
    assert chat["x"] + chat["width"] <= pane["x"], (chat, pane)
    assert page.locator(".pane-tabs").is_hidden()


def _move(project: Project, phase: Phase) -> None:
    write_status(project.dir, read_status(project.dir).model_copy(update={"phase": phase}))


def _progress(project: Project, done: int) -> None:
    items = [
        ProgressItem(label=label, done=n < done, detail="written" if n < done else "")
        for n, label in enumerate(SECTIONS)
    ]
    write_text_atomic(
        project.dir / BUILD_PROGRESS_FILE, BuildProgress(items=items).model_dump_json()
    )


def _plan(sections: int) -> str:
    body = "\n\n".join(
        f"## {label}\n\n" + " ".join(f"Step {n} of the {label.lower()}." for n in range(1, 25))
        for label in SECTIONS[:sections]
    )
    return f"# Plan: Garden Shed\n\n{body}\n"


def test_phase_one_shows_the_draft_in_the_pane_and_the_words_stay_true(
    bench: Bench, open_page: Any
) -> None:
    project = under_review(bench.config)
    page = open_page("wide")
    page.goto(f"{bench.url}/projects/{project.id}")
    _side_by_side(page)
    pane = page.locator("#deliverable")
    assert pane.locator("#pane-head h2").inner_text() == "Your intent (draft)"
    pane.locator(".draft-view .body h2", has_text="Objective").wait_for()
    assert "Plan a small countryside wedding for 60 guests" in pane.inner_text()
    _in_view(page, "#deliverable .draft-view h2 >> nth=0")
    _in_view(page, "#message")
    assert "Waiting for your brain dump" not in page.inner_text("body")
    assert page.get_attribute("#message", "placeholder") == "Write to ThoughtForge…"
    assert page.locator("#keys").is_visible()  # a keyboard here: the keys are told
    _shot(page, "70-phase-one-draft-in-pane-wide")
    accessible(page)

    page.fill("#message", "The barn seats 80.")  # no run: kept for the AI's next call
    page.locator('#actions [data-action="send"]').click()
    page.locator("#feedback", has_text="Kept").wait_for()
    page.wait_for_function(
        "() => document.getElementById('feedback').textContent === ''", timeout=WAIT_MS
    )  # a confirmation fades

    _spec_draft_with_open_items(bench, page)

    brand = page.locator("#sidebar .brand").bounding_box()
    page.evaluate(
        "() => { const b = document.getElementById('connection'); b.hidden = false;"
        " b.textContent = 'Server stopped — reconnecting…'; }"
    )
    banner = page.locator("#connection").bounding_box()
    assert brand is not None and banner is not None
    assert banner["x"] >= brand["x"] + brand["width"], (banner, brand)  # the brand stays readable


def _spec_draft_with_open_items(bench: Bench, page: Any) -> None:
    """Phase 2: the spec proposal in the pane with what it leaves open, and the Confirm that
    accepts those offered beside the plain one."""
    project = spec_building_project(bench.config)
    say_ai(project, proposal(resolved="- Exact date in June: UNRESOLVED: the barn has not said"))
    page.goto(f"{bench.url}/projects/{project.id}")
    assert page.inner_text("#pane-head h2") == "The spec (draft)"
    items = page.locator("#deliverable .open-items")
    assert items.locator("h3").inner_text() == "2 open items"
    _in_view(page, "#deliverable .open-items")
    _shot(page, "70b-phase-two-spec-draft-wide")


def test_phase_three_mid_build_then_polish_with_the_sidebar_in_step(
    bench: Bench, open_page: Any
) -> None:
    project = building_project(bench.config)
    (project.dir / "docs" / "plan.md").write_text(_plan(2))
    _progress(project, done=2)
    with hold_run_lock(project):  # a run at work on the plan
        _building(bench, project, open_page("wide"))


def _building(bench: Bench, project: Project, page: Any) -> None:
    activity = AgentActivity(
        agent="demo", step="plan-build", phase="building", attempt=1, started_at=utc_now()
    )
    begin_call(project.dir, activity)
    page.goto(f"{bench.url}/projects/{project.id}")
    _side_by_side(page)
    page.locator("#pane-head .pane-step", has_text="Now: Writing the plan").wait_for()
    page.locator("#work .working", has_text="The AI is working: Writing the plan").wait_for()
    current = page.locator("#panel ol.build li.current")
    assert current.inner_text().strip().startswith("Roof")
    assert current.get_attribute("aria-current") == "step"
    assert page.locator("#panel ol.build li.done").count() == 2
    assert "Build: 2 of 5 done" in page.inner_text("#panel")
    page.locator("#panel .deliverable h2", has_text="Frame and walls").wait_for()
    assert page.locator("#panel .deliverable h2", has_text="Roof").count() == 0
    _in_view(page, "#panel ol.build li.current")
    _shot(page, "71-phase-three-mid-build-wide")
    accessible(page)

    (project.dir / "docs" / "plan.md").write_text(_plan(3))
    _progress(project, done=3)  # the next part lands: the page shows it without a reload
    page.locator("#panel ol.build li.current", has_text="Door and window").wait_for()
    page.locator("#panel .deliverable h2", has_text="Roof").wait_for()

    _move(project, Phase.POLISHING)
    entry = f'#sidebar-list [data-project-id="{project.id}"] .meta'
    page.locator("#project-header .phase", has_text="Phase 4 · Polishing").wait_for()
    assert page.inner_text(entry).startswith("Phase 4 · Polishing")  # the same moment
    assert page.inner_text("#pane-head h2") == "The deliverable, being polished"
    _progress(project, done=len(SECTIONS))
    _polished(project, iterations=2, completed=False)
    page.locator("#panel svg.chart").wait_for()
    assert "Build: 5 of 5 done" in page.inner_text("#panel")
    _shot(page, "71b-phase-four-polishing-wide")


def _polished(project: Project, iterations: int, completed: bool) -> None:
    now = datetime.now(UTC)
    trajectory = [
        TrajectoryEntry(
            iteration=n, critical=0, medium=m, minor=1, total=m + 1, fix_applied=True, timestamp=now
        )
        for n, m in zip(range(1, iterations + 1), (3, 1, 0), strict=False)
    ]
    state = PolishState(
        iteration=iterations, counts=Counts(minor=1), trajectory=trajectory, completed=completed
    )
    write_polish_state(project.dir, state)


def _done_project(bench: Bench) -> Project:
    project = building_project(bench.config)
    (project.dir / "docs" / "plan.md").write_text(_plan(len(SECTIONS)))
    _progress(project, done=len(SECTIONS))
    _polished(project, iterations=3, completed=True)
    for n in range(1, 13):  # a thread longer than the screen: the page opens at its end
        said = f"Polish iteration {n}: " + "the budget table was checked again. " * 6
        append_chat(project.dir, ChatMessage(role="ai", content=said, phase=Phase.POLISHING))
    append_chat(
        project.dir,
        ChatMessage(role="system", content="Done: the plan is final.", phase=Phase.POLISHING),
    )
    _move(project, Phase.DONE)
    return project


@pytest.mark.parametrize("size", list(SIZES))
def test_done_puts_the_deliverable_and_its_actions_above_the_fold(
    bench: Bench, open_page: Any, size: str
) -> None:
    project = _done_project(bench)
    page = open_page(size)
    page.goto(f"{bench.url}/projects/{project.id}")
    if size == "phone":  # done opens on what it made; the thread is one tap away
        assert page.locator("#tab-deliverable").get_attribute("aria-selected") == "true"
        assert page.locator("#conversation").is_hidden()
    else:
        _side_by_side(page)
        assert page.evaluate("() => window.scrollY") > 0  # at the newest message
        _in_view(page, "#conversation .message.system")
        _in_view(page, "#project-header h1")  # however long the thread, which project, where
        _in_view(page, "#project-header .phase")
        current = page.locator(f'#sidebar-list .entry[data-project-id="{project.id}"] > a')
        assert current.get_attribute("aria-current") == "page"
    head = page.locator("#pane-head")
    assert head.locator("h2").inner_text() == "The deliverable"
    for selector in (
        '#pane-head a[href$="/history"]',
        "#pane-head button[data-revise]",
        '#pane-head button[data-archive="archive"]',
        "#pane-head .spend",
        "#panel .deliverable h1",
    ):
        _in_view(page, selector)
    assert head.locator(".spend").inner_text().startswith("spent ")
    _shot(page, f"72-done-deliverable-above-the-fold-{size}")
    accessible(page)

    head.locator("button[data-revise]").click()  # Revise: write the change in the composer
    assert page.evaluate("() => document.activeElement.id") == "message"
    assert "What should change?" in (page.get_attribute("#message", "placeholder") or "")
    assert page.locator("#conversation").is_visible()


def test_on_a_phone_the_panes_are_tabs_and_the_other_one_says_when_it_changed(
    bench: Bench, open_page: Any
) -> None:
    project = under_review(bench.config)
    page = open_page("phone")
    page.goto(f"{bench.url}/projects/{project.id}")
    chat, pane = page.locator("#tab-conversation"), page.locator("#tab-deliverable")
    assert chat.get_attribute("aria-selected") == "true"
    assert page.locator("#conversation").get_attribute("role") == "tabpanel"
    assert page.locator("#deliverable").is_hidden()
    assert page.locator("#keys").is_hidden()  # a touch screen: no keys to tell of
    assert page.locator("#actions kbd").first.is_hidden()
    fits = page.evaluate(
        """() => {
        const box = document.getElementById('message'), style = getComputedStyle(box);
        const pen = document.createElement('canvas').getContext('2d');
        pen.font = style.font;
        const pad = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
        const room = box.clientWidth - pad;
        return pen.measureText(box.placeholder).width <= room;
    }"""
    )
    assert fits, "the composer's placeholder is clipped"

    badge = pane.locator(".tab-badge")
    page.wait_for_timeout(2000)  # the stream's first events (the page as served): no change
    assert badge.is_hidden()
    append_chat(
        project.dir,
        ChatMessage(
            role="ai",
            content=distillation(objective="Plan a wedding for 80 guests in the barn."),
            phase=Phase.HUMAN_REVIEW,
        ),
    )
    badge.wait_for(state="visible")  # the draft changed out of sight
    _shot(page, "73-phone-tabs-with-badge")
    accessible(page)

    chat.focus()
    page.keyboard.press("ArrowRight")  # the tablist's keys
    assert pane.get_attribute("aria-selected") == "true"
    assert page.evaluate("() => document.activeElement.id") == "tab-deliverable"
    assert badge.is_hidden()
    assert "80 guests in the barn" in page.inner_text("#deliverable .draft-view")
    assert page.locator("#conversation").is_hidden()
    _shot(page, "74-phone-deliverable-tab")
    accessible(page)
    page.keyboard.press("ArrowLeft")
    assert chat.get_attribute("aria-selected") == "true"
    assert page.locator("#message").is_visible()


@pytest.mark.parametrize("size", list(SIZES))
def test_an_archived_project_says_so_where_the_page_opens_and_unarchives_from_there(
    bench: Bench, open_page: Any, size: str
) -> None:
    project = _done_project(bench)
    archive(project)
    page = open_page(size)
    page.goto(f"{bench.url}/projects/{project.id}")
    _in_view(page, "#pane-head .badge.archived")
    _in_view(page, '#pane-head button[data-archive="unarchive"]')
    if size == "wide":
        _in_view(page, "#project-header .badge.archived")
    _shot(page, f"75-archived-done-{size}")
    accessible(page)
    page.locator('#pane-head button[data-archive="unarchive"]').click()
    page.locator('#pane-head button[data-archive="archive"]').wait_for()
    assert read_status(project.dir).archived_at is None
