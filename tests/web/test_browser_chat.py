"""The workbench as a chat app, in a real browser at a desktop and a phone size, under a real
`thoughtforge up`: the newest message stays in view above the composer (and a marker says when
new ones came while the person read back), a Phase 1 turn done with the keyboard alone, a run
on its way offered no second Start (and a fast double Start makes one run), a message sent while
the AI works answered and marked read, an agent switched at a halt, agents that are not
installed not offered, the board with its Done column in reach, and every page checked with
axe-core.

Headless Debian Chromium driven by Playwright; a screenshot of each check in
`test-artifacts/web/`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.phases.conftest import distillation
from tests.stack.conftest import BIN, REPO, Stack, running, wait_for
from thoughtforge.actions.composer import WAITS_FOR
from thoughtforge.config import load_config
from thoughtforge.core.creation import create_project
from thoughtforge.core.project import Project
from thoughtforge.core.state import ChatMessage, read_status, read_thread, write_chat
from thoughtforge.core.transition import transition
from thoughtforge.core.waiting import current_wait
from thoughtforge.models import HaltReason, Phase
from thoughtforge.phases import human_decisions
from thoughtforge.stack.api import PrefectApi, project_tag

pytestmark = pytest.mark.slow
SHOTS = REPO / "test-artifacts" / "web"
SIZES = {"wide": {"width": 1300, "height": 900}, "phone": {"width": 390, "height": 844}}
BRAIN_DUMP = (REPO / "examples" / "wedding-plan.md").read_text()
SLOW_SECONDS = 3


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    tmp_path = tmp_path_factory.mktemp("chat-stack")
    script = tmp_path / "slow.yaml"
    script.write_text(
        yaml.safe_dump(
            {"steps": {"brain-dump-intake": {"text": distillation(), "sleep": SLOW_SECONDS}}}
        )
    )
    stack = Stack(tmp_path, concurrency={"max_parallel_runs": 20})
    data = yaml.safe_load(stack.config.read_text())
    data["agents"]["available"]["slow"] = {
        "command": str(BIN / "thoughtforge-scripted-agent"),
        "flags": ["--script", str(script)],
    }
    data["agents"]["available"]["absent"] = {"command": "no-such-agent-cli"}
    data["agents"]["default"] = "demo"
    stack.config.write_text(yaml.safe_dump(data))
    with running(stack):
        yield stack


@pytest.fixture(params=list(SIZES))
def size(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def page(browser: Any, size: str) -> Iterator[Any]:
    context = browser.new_context(viewport=SIZES[size])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("dialog", lambda dialog: dialog.accept())
    yield page
    context.close()
    assert errors == [], errors


def _shot(page: Any, name: str, size: str) -> None:
    """What the person sees (the viewport), as they see it."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}-{size}.png"))


def _accessible(page: Any) -> None:
    """axe-core on the page as it is: no serious or critical violation."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    bad = [
        (v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert bad == [], f"{page.url}: {bad}"
    width = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"{page.url} scrolls sideways: {width}"


def _newest_in_view(page: Any) -> None:
    """The newest message's box is in the viewport, above the composer."""
    box = page.evaluate(
        """() => {
        const all = document.querySelectorAll('#messages .message');
        const r = all[all.length - 1].getBoundingClientRect();
        const c = document.getElementById('composer').getBoundingClientRect();
        return {top: r.top, bottom: r.bottom, composer: c.top, height: innerHeight};
    }"""
    )
    assert 0 < box["bottom"] <= box["composer"] + 1, box


def _asked(page: Any, project: Path, kind: str, seconds: float = 180) -> None:
    """The run asks (again: a wait other than the one it had) with form `kind`, and the page's
    composer says so."""
    before = current_wait(project)
    answered = before.key if before is not None and before.kind != kind else None

    def waits() -> bool:
        waiting = current_wait(project)
        return waiting is not None and waiting.kind == kind and waiting.key != answered

    wait_for(waits, f"the {kind} wait", seconds)
    note = f"Waiting for {WAITS_FOR[kind]}."
    page.locator("#actions .composer-note", has_text=note).wait_for(timeout=30_000)


def _key(project: Path) -> str | None:
    waiting = current_wait(project)
    return waiting.key if waiting else None


def _runs(stack: Stack, project_id: str) -> int:
    body = {"flow_runs": {"tags": {"all_": [project_tag(project_id)]}}}
    return len(PrefectApi(stack.api).call("POST", "/flow_runs/filter", body))


def _project(stack: Stack, agent: str = "demo") -> Project:
    return create_project(load_config(stack.config), brain_dump=BRAIN_DUMP, agent=agent)


def _focused(page: Any) -> str:
    return str(page.evaluate("() => document.activeElement.id"))


def test_a_phase_one_turn_by_keyboard_alone_with_the_newest_message_in_view(
    stack: Stack, page: Any, size: str
) -> None:
    page.goto(f"{stack.web}/projects/new")
    assert _focused(page) == "brain-dump"  # autofocus
    absent = page.locator('#agent option[value="absent"]')
    assert absent.is_disabled() and "not found" in absent.inner_text()
    assert "not on PATH" in absent.inner_text()
    assert page.locator('#agent option[value="demo"]').inner_text().startswith("demo — installed")
    _accessible(page)
    page.keyboard.insert_text(BRAIN_DUMP)
    _shot(page, "40-new-project", size)
    page.keyboard.press("Control+Enter")
    page.wait_for_url("**/projects/2*")
    project = stack.projects / page.url.rstrip("/").rsplit("/", 1)[1]

    offered_start = []
    deadline = time.monotonic() + 120
    while current_wait(project) is None and time.monotonic() < deadline:
        offered_start.append(page.locator('#actions [data-action="start"]').count())
        page.wait_for_timeout(100)
    assert not any(offered_start), "Start was offered while the run was on its way"
    _asked(page, project, "IntakeTurn")
    header = page.inner_text("#project-header")
    assert "Phase 1 · Brain dump" in header and "brain_dump" not in header
    assert page.inner_text("#project-header h1").startswith("ok so we're getting married")
    _newest_in_view(page)
    assert _focused(page) == "message"
    page.keyboard.press("Tab")
    assert _focused(page) == "attach-button"  # Attach is reachable
    page.keyboard.press("Shift+Tab")
    assert "Ctrl+Enter" in page.inner_text('#actions [data-action="distill"]')
    primary = page.locator("#actions button.primary")  # the step's next action, not Send
    assert primary.count() == 1 and primary.get_attribute("data-action") == "distill"

    asked = current_wait(project)
    assert asked is not None
    page.keyboard.type("The venue is booked for June 14th.")
    page.keyboard.press("Enter")
    page.locator(".message.human", has_text="The venue is booked for June 14th.").wait_for()
    page.locator("#feedback", has_text="Sent").wait_for()
    _newest_in_view(page)
    wait_for(lambda: _key(project) not in (None, asked.key), "the run to ask again")
    _asked(page, project, "IntakeTurn")
    page.keyboard.press("Control+Enter")  # Distill
    _asked(page, project, "ReviewTurn")
    page.locator(".message.ai", has_text="Objective").last.wait_for()
    page.locator(".message.human .read", has_text="read at distillation 1").first.wait_for()
    _newest_in_view(page)
    _shot(page, "41-distilled-newest-in-view", size)
    _accessible(page)

    page.keyboard.type("Correction: the budget is 14k, not 15k.")
    page.keyboard.press("Enter")
    page.locator("#feedback", has_text="Sent").wait_for()
    page.evaluate("() => window.scrollTo(0, 0)")  # the person reads back
    page.locator("#new-messages").wait_for(state="visible", timeout=180_000)
    _shot(page, "42-new-messages-marker", size)
    page.keyboard.press("Tab")  # from the message box: the marker is in the composer
    page.locator("#new-messages").click()
    _newest_in_view(page)
    assert page.locator("#new-messages").is_hidden()


def test_a_run_on_its_way_is_started_once_however_often_start_is_pressed(
    stack: Stack, page: Any, size: str
) -> None:
    """Before, Start was offered while the run started, and a second one made a second run."""
    project = _project(stack)
    page.goto(f"{stack.web}/projects/{project.id}")
    assert "No run is working" in page.inner_text("#actions")
    page.evaluate(
        """() => {
        const start = document.querySelector('#actions [data-action="start"]');
        start.click(); start.click();
        const token = document.querySelector('meta[name="tf-token"]').content;
        const press = () => fetch(location.pathname + '/answer', {method: 'POST',
            headers: {'Content-Type': 'application/json', 'X-ThoughtForge-Token': token},
            body: JSON.stringify({action: 'start', message: ''})});
        return Promise.all([press(), press()]);
    }"""
    )
    page.locator("#actions .composer-note.starting, #actions .composer-note").first.wait_for()
    refused = stack.tf("continue", project.id)  # the CLI is refused as well
    assert refused.returncode != 0
    # the run is still on its way, or (a warm start is quick) already asks the person
    assert "already" in refused.stderr or "waiting for you" in refused.stderr, refused.stderr
    _asked(page, project.dir, "IntakeTurn")
    _shot(page, "43-one-run-started", size)
    assert _runs(stack, project.id) == 1


def test_a_message_sent_while_the_ai_works_is_answered_and_marked_read(
    stack: Stack, page: Any, size: str
) -> None:
    """Before, it was "Kept", the reply ignored it, and nothing came until the person acted."""
    project = _project(stack, agent="slow")
    page.goto(f"{stack.web}/projects/{project.id}")
    page.locator('#actions [data-action="start"]').click()
    _asked(page, project.dir, "IntakeTurn")
    page.locator("#message").focus()
    page.keyboard.press("Control+Enter")  # Distill: the slow agent takes a few seconds
    working = page.locator("#work .working", has_text="Distilling your brain dump")
    working.wait_for(timeout=120_000)
    assert "brain-dump-intake" not in page.inner_text("#work")
    late = "Also: the barn has no heating, plan for a cold evening."
    page.fill("#message", late)
    page.keyboard.press("Enter")
    page.locator("#feedback", has_text="Kept").wait_for()
    _shot(page, "44-sent-while-working", size)
    mark = page.locator(".message.human", has_text=late).locator(".read")
    mark.wait_for(state="visible", timeout=180_000)
    assert mark.inner_text() == "read at distillation 2"
    _asked(page, project.dir, "ReviewTurn")
    distillations = [m for m in read_thread(project.dir) if m.role == "ai"]
    assert len(distillations) == 2  # answered without the person acting again
    _newest_in_view(page)
    _shot(page, "45-late-message-answered", size)


def test_an_agent_is_switched_at_a_halt(stack: Stack, page: Any, size: str) -> None:
    project = _project(stack, agent="absent")
    transition(project, Phase.DISTILLING)
    transition(project, Phase.HALTED, halt_reason=HaltReason.AGENT_FAILURE, summary="absent failed")
    page.goto(f"{stack.web}/projects/{project.id}")
    header = page.inner_text("#project-header")
    assert "Halted in Phase 1 · Distilling: agent failure" in header
    choice = page.locator("#switch-agent")
    assert page.locator('#switch-agent option[value="absent"]').is_disabled()
    choice.select_option("demo")
    _shot(page, "46-halt-agent-choice", size)
    _accessible(page)
    page.locator('#actions [data-action="resume"]').click()
    _asked(page, project.dir, "ReviewTurn")
    assert read_status(project.dir).agent == "demo"
    page.locator(".message.system", has_text="The agent is now 'demo'").wait_for()


def test_the_board_and_the_menu_fit_and_every_page_is_accessible(
    stack: Stack, page: Any, size: str
) -> None:
    for stage in ("Prefect server at", "Worker on pool", "Workbench at", "Warm starter"):
        assert f"{stage}" in stack.up_output, stack.up_output  # `up` said each stage
    ended = _project(stack)
    human_decisions.terminate(ended)
    page.goto(f"{stack.web}/board")
    # In one step: the board is redrawn whenever a project of the stack moves, which detached the
    # column between finding it and scrolling to it.
    box = page.evaluate(
        """() => {
        const done = document.querySelector('.column[data-column="done"]');
        done.scrollIntoView({block: 'nearest'});
        const r = done.getBoundingClientRect();
        return {x: r.x, width: r.width};
    }"""
    )
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= SIZES[size]["width"]
    assert page.locator(f'.terminated-cards [data-project-id="{ended.id}"]').count() == 1
    assert page.locator(f'.column [data-project-id="{ended.id}"]').count() == 0
    _shot(page, "47-board", size)
    _accessible(page)
    for path in ("/", "/projects/new", "/settings/prompts", "/settings/prompts/plan-review"):
        page.goto(f"{stack.web}{path}")
        _accessible(page)
    _long_thread_pages_back_with_the_right_count(stack, page, size)
    if size == "phone":
        assert page.locator("#sidebar").is_hidden()
        page.locator("#menu-toggle").click()
        inbox = page.locator("#sidebar nav a", has_text="Inbox")
        assert inbox.is_visible()
        assert inbox.bounding_box()["height"] < 30  # one line: not "Inbo x"
        _shot(page, "48-menu-open", size)
        page.keyboard.press("Escape")
        assert page.locator("#sidebar").is_hidden()


def _long_thread_pages_back_with_the_right_count(stack: Stack, page: Any, size: str) -> None:
    """Before, after loading 200 older messages the button still offered all of them; and an
    AI message's text is copied with its Copy button."""
    project = _project(stack)
    said = [
        ChatMessage(
            role="ai" if n % 2 else "human", content=f"Message {n}.", phase=Phase.BRAIN_DUMP
        )
        for n in range(450)
    ]
    write_chat(project.dir, said)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(f"{stack.web}/projects/{project.id}")
    _newest_in_view(page)
    earlier = page.locator("#earlier")
    assert earlier.inner_text() == "Show 250 earlier messages"
    earlier.click()
    page.locator("#earlier", has_text="Show 50 earlier messages").wait_for()
    earlier.click()
    earlier.wait_for(state="detached")
    assert page.locator("#messages .message").count() == 450
    last_ai = page.locator(".message.ai").last
    last_ai.locator("button.copy").click()
    last_ai.locator("button.copy", has_text="Copied").wait_for()
    assert page.evaluate("() => navigator.clipboard.readText()").strip() == "Message 449."
    _shot(page, "49-long-thread", size)
