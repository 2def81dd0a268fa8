"""Edit the draft and Archive in a real browser under a real `thoughtforge up`: the AI's
distillation edited in the page, a bad edit refused and kept in its box, the good one saved and
confirmed to the run suspended at the review, which goes on to Phase 2 with the edited
intent; a finished project archived, found under the inbox's Archived filter, and brought back.

Headless Debian Chromium driven by Playwright; a screenshot of each step in
`test-artifacts/web/`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.stack.conftest import REPO, Stack, running, wait_for
from thoughtforge.actions.composer import WAITS_FOR
from thoughtforge.config import load_config
from thoughtforge.core.creation import create_project
from thoughtforge.core.project import INTENT_FILE
from thoughtforge.core.state import read_status, write_status
from thoughtforge.core.waiting import current_wait
from thoughtforge.models import Phase

pytestmark = pytest.mark.slow
SHOTS = REPO / "test-artifacts" / "web"
BRAIN_DUMP = (REPO / "examples" / "wedding-plan.md").read_text()
EDITED = "Edited in the page: a wedding for 80 guests on May 9th."


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    stack = Stack(tmp_path_factory.mktemp("drafts-stack"), concurrency={"max_parallel_runs": 10})
    data = yaml.safe_load(stack.config.read_text())
    data["agents"]["default"] = "demo"
    stack.config.write_text(yaml.safe_dump(data))
    with running(stack):
        yield stack


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A desktop-size page; any script error on it fails the test."""
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield tab
    context.close()
    assert errors == [], errors


def _shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def _asked(page: Any, project: Path, kind: str, seconds: float = 300) -> None:
    def waits() -> bool:
        waiting = current_wait(project)
        return waiting is not None and waiting.kind == kind

    wait_for(waits, f"the {kind} wait", seconds)
    note = f"Waiting for {WAITS_FOR[kind]}."
    page.locator("#actions .composer-note", has_text=note).wait_for(timeout=30_000)


def test_the_draft_is_edited_in_the_page_and_confirmed_to_the_suspended_run(
    stack: Stack, page: Any
) -> None:
    project = create_project(load_config(stack.config), brain_dump=BRAIN_DUMP, agent="demo")
    page.goto(f"{stack.web}/projects/{project.id}")
    page.click('#actions [data-action="start"]')
    _asked(page, project.dir, "IntakeTurn")
    page.click('#actions [data-action="distill"]')
    _asked(page, project.dir, "ReviewTurn")
    waiting = current_wait(project.dir)
    assert waiting is not None and waiting.away  # the run is suspended: no process holds it

    edit = page.locator(".message.draft button.edit-draft").last
    edit.wait_for(state="visible")
    edit.click()
    box = page.locator(".draft-editor textarea")
    box.wait_for()
    original = box.input_value()
    assert "## Objective" in original
    broken = original.replace("## Objective", "## Goal")
    box.fill(broken)
    page.click(".draft-editor button:text-is('Save and confirm')")
    page.locator(".draft-feedback.error", has_text="## Objective").wait_for()
    assert box.input_value() == broken  # refused, and kept in the box
    assert read_status(project.dir).phase is Phase.HUMAN_REVIEW
    _shot(page, "60-edit-draft-refused-kept")

    box.fill(original.replace("## Objective\n", f"## Objective\n{EDITED}\n", 1))
    _shot(page, "61-edit-draft-box")
    page.click(".draft-editor button:text-is('Save and confirm')")
    page.locator(".message.edited .mark", has_text="draft edited by you").wait_for()
    wait_for(lambda: (project.dir / INTENT_FILE).exists(), "the edited intent to be locked")
    assert EDITED in (project.dir / INTENT_FILE).read_text()
    _asked(page, project.dir, "SpecTurn")  # the woken run took the Confirm and went on
    assert read_status(project.dir).project_name == EDITED.rstrip(".")
    _shot(page, "62-edit-draft-confirmed")


def test_a_finished_project_is_archived_into_the_filter_and_brought_back(
    stack: Stack, page: Any
) -> None:
    project = create_project(load_config(stack.config), brain_dump=BRAIN_DUMP, agent="demo")
    write_status(project.dir, read_status(project.dir).model_copy(update={"phase": Phase.DONE}))
    listed = f'#sidebar-list > ol.projects [data-project-id="{project.id}"]'
    page.goto(f"{stack.web}/projects/{project.id}")
    assert page.locator(listed).count() == 1
    page.click('button[data-archive="archive"]')
    page.locator(".archive-row .badge.archived").wait_for()
    page.locator(listed).wait_for(state="detached")  # out of the inbox's list
    archived = page.locator("details.archived-list")  # unfolded by itself: the open project
    archived.locator(f'[data-project-id="{project.id}"]').wait_for(state="visible")
    assert archived.locator(f'[data-project-id="{project.id}"] > a[aria-current="page"]').count()
    assert read_status(project.dir).archived_at is not None
    _shot(page, "63-archived-under-the-filter")

    page.click('button[data-archive="unarchive"]')
    page.locator('button[data-archive="archive"]').wait_for()
    page.locator(listed).wait_for()  # back in the list
    assert read_status(project.dir).archived_at is None
    _shot(page, "64-unarchived")
