"""Life after done in a real browser: Revise a done project from its thread, and on the History
page see a polish iteration's before/after and Restore Phase 3's end. Screenshots go to
`test-artifacts/web/`. The page runs without a Prefect server here: what a run does with a
revision is the CLI's and the deployment's tests' business; this is the page's part."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.build_setup import building_project
from tests.web.conftest import Bench
from thoughtforge.core import (
    PolishState,
    Project,
    TrajectoryEntry,
    read_polish_state,
    read_status,
    read_thread,
    write_polish_state,
    write_status,
)
from thoughtforge.core.git_repo import commit
from thoughtforge.models import Counts, Phase

pytestmark = pytest.mark.slow
SHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"
BUILT = "# Plan\n\n## Budget\n\nBudget 15k, first draft.\n"
FIXED = "# Plan\n\n## Budget\n\nBudget 15k, with a 10% contingency.\n"
CHANGE = "The budget is 12k now, not 15k."


def _done_project(bench: Bench) -> Project:
    """A plan project with Phase 3's end, one polish iteration (a fix) and Done committed."""
    project = building_project(bench.config)
    plan = project.dir / "docs" / "plan.md"
    plan.write_text(BUILT)
    _move(project, Phase.POLISHING)
    commit(project.dir, "Phase 3 complete: plan built")
    plan.write_text(FIXED)
    now = datetime.now(UTC)
    entry = TrajectoryEntry(
        iteration=1, critical=0, medium=1, minor=0, total=1, fix_applied=True, timestamp=now
    )
    write_polish_state(
        project.dir,
        PolishState(iteration=1, counts=Counts(medium=1), trajectory=[entry], completed=True),
    )
    commit(project.dir, "fix #1: docs/plan.md updated (40 → 48 chars)")
    _move(project, Phase.DONE)
    commit(project.dir, "Done")
    return project


def _move(project: Project, phase: Phase) -> None:
    write_status(project.dir, read_status(project.dir).model_copy(update={"phase": phase}))


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    page = browser.new_page(viewport={"width": 1300, "height": 950})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("dialog", lambda dialog: dialog.accept())
    yield page
    page.close()
    assert errors == [], errors


def _shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_restore_this_version_from_the_history_page(bench: Bench, page: Any) -> None:
    project = _done_project(bench)
    page.goto(f"{bench.url}/projects/{project.id}")
    page.get_by_role("link", name="History").click()
    page.locator('#history li[data-item="polish-1"]').wait_for()
    assert page.locator("#history li").count() == 4  # phase2, phase3, polish-1, phase4
    _shot(page, "after-done-01-history")

    page.locator('li[data-item="polish-1"] a.history-diff').click()
    words = page.locator("#changed .diff-file").first
    assert words.get_attribute("data-file") == "docs/plan.md", "the deliverable first"
    assert words.locator("del").inner_text() == "first draft"
    assert words.locator("ins").inner_text() == "with a 10% contingency"
    folded = page.locator("#changed details.bookkeeping")
    assert folded.get_attribute("open") is None
    assert "polish_state.json" in folded.locator("summary").inner_text()
    assert not folded.locator('[data-file="polish_state.json"]').is_visible()
    _shot(page, "after-done-02-before-after")

    page.goto(f"{bench.url}/projects/{project.id}/history")
    page.locator('li[data-item="phase3"] [data-restore]').click()
    page.wait_for_url(f"{bench.url}/projects/{project.id}", timeout=30_000)
    assert (project.dir / "docs" / "plan.md").read_text() == BUILT
    assert read_status(project.dir).phase is Phase.POLISHING
    assert read_polish_state(project.dir).iteration == 0
    page.locator("#messages", has_text="Rolled back to phase3").wait_for()
    note = page.locator(".composer-note").inner_text()
    assert note.startswith("Restored phase3") and "Start polishes on from iteration 1." in note
    assert "stopped mid-phase" not in note
    _shot(page, "after-done-03-restored")

    # Restore again, forward to the done it came from: before, refused as "in polishing".
    page.goto(f"{bench.url}/projects/{project.id}/history")
    page.locator('li[data-item="phase4"] [data-restore]').click()
    page.wait_for_url(f"{bench.url}/projects/{project.id}", timeout=30_000)
    assert (project.dir / "docs" / "plan.md").read_text() == FIXED
    assert read_status(project.dir).phase is Phase.DONE
    page.locator("#messages", has_text="Rolled back to phase4").wait_for()
    _shot(page, "after-done-03b-restored-again")


def test_revise_a_done_project_from_its_thread(bench: Bench, page: Any) -> None:
    project = _done_project(bench)
    page.goto(f"{bench.url}/projects/{project.id}")
    revise = page.locator('#actions [data-action="revise"]')
    revise.wait_for()
    _shot(page, "after-done-04-done-offers-revise")
    page.fill("#message", CHANGE)
    revise.click()
    page.locator("#feedback", has_text="Revision 2 started").wait_for(timeout=30_000)
    status = read_status(project.dir)
    assert status.phase is Phase.SPEC_BUILDING
    thread = [m.content for m in read_thread(project.dir)]
    assert CHANGE in thread and any(t.startswith("— Revision 2 begins —") for t in thread)
    page.reload()
    page.locator(".revision", has_text="revision 2").wait_for()
    _shot(page, "after-done-05-revision-2-started")
