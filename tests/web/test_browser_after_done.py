"""Life after done in a real browser: Revise a done project from its thread, and on the History
page see a polish iteration's before/after and Restore Phase 3's end; and a revision the real
pipeline carried out (the demo agent, the CLI with its temporary Prefect server) seen where a
person looks: the deliverable pane and History's before/after. Screenshots go to
`test-artifacts/web/`. The page runs without a Prefect server here."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.build_setup import building_project
from tests.conftest import REPO_ROOT
from tests.web.conftest import Bench
from thoughtforge.core.git_repo import commit
from thoughtforge.core.project import Project
from thoughtforge.core.revisions import current_revision
from thoughtforge.core.state import (
    PolishState,
    TrajectoryEntry,
    read_polish_state,
    read_status,
    read_thread,
    write_polish_state,
    write_status,
)
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


def _cli(bench: Bench, *args: str) -> str:
    """A `thoughtforge` command on the bench's config, as a person runs it: no Prefect server
    answers, so the command starts a temporary one for its run. Its output, once it succeeded."""
    home = bench.config_file.parent
    env = {
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",  # the demo agent's command
        "HOME": str(home),
        "PREFECT_HOME": str(home / ".prefect"),
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "COLUMNS": "200",
        "PYTHONPATH": str(REPO_ROOT),
    }
    command = [sys.executable, "-m", "thoughtforge", "--config", str(bench.config_file), *args]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=90)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


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


def _shot(page: Any, name: str, *, full_page: bool = True) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full_page)


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
    marked = page.locator('#sidebar-list [aria-current="page"]')  # the open project, here too
    assert marked.count() == 1
    assert marked.locator("xpath=..").get_attribute("data-project-id") == project.id
    page.locator('li[data-item="phase3"] [data-restore]').click()
    page.wait_for_url(f"{bench.url}/projects/{project.id}", timeout=30_000)
    assert (project.dir / "docs" / "plan.md").read_text() == BUILT
    assert read_status(project.dir).phase is Phase.POLISHING
    assert read_polish_state(project.dir).iteration == 0
    page.locator("#messages", has_text="Rolled back to phase3").wait_for()
    note = page.locator(".composer-note").inner_text()
    assert note.startswith("Restored phase3") and "Start polishes on from iteration 1." in note
    assert "stopped mid-phase" not in note
    head = page.inner_text("#pane-head h2")  # nothing runs: not "being polished"
    assert head == "The deliverable, polishing paused"
    _shot(page, "after-done-03-restored")

    # Restore again, forward to the done it came from: before, refused as "in polishing".
    page.goto(f"{bench.url}/projects/{project.id}/history")
    page.locator('li[data-item="phase4"] [data-restore]').click()
    page.wait_for_url(f"{bench.url}/projects/{project.id}", timeout=30_000)
    assert (project.dir / "docs" / "plan.md").read_text() == FIXED
    assert read_status(project.dir).phase is Phase.DONE
    page.locator("#messages", has_text="Rolled back to phase4").wait_for()
    _shot(page, "after-done-03b-restored-again")


def test_history_fits_a_phone(bench: Bench, browser: Any) -> None:
    project = _done_project(bench)
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        page = context.new_page()
        page.goto(f"{bench.url}/projects/{project.id}/history")
        page.locator('#history li[data-item="polish-1"]').wait_for()
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
        for button in page.locator("#history .restore").all():
            box = button.bounding_box()
            assert box is not None and box["x"] + box["width"] <= 390
        when = page.locator("#history .history-when").first.bounding_box()
        assert when is not None and when["height"] < 60  # a line or two, not five
        _shot(page, "after-done-01b-history-phone", full_page=False)
    finally:
        context.close()


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


def test_a_revision_carried_out_shows_its_change_in_the_pane_and_in_history(
    bench: Bench, page: Any
) -> None:
    """The README's first command, Revise on the page, the run the CLI carries out: the new
    figure is in the deliverable the page shows, and History's before/after names the words."""
    _cli(bench, "run", str(REPO_ROOT / "examples" / "wedding-plan.md"), "--auto-confirm")
    [project_dir] = [
        p for p in bench.config.projects.directory.iterdir() if not p.name.startswith(".")
    ]
    project = Project(id=project_dir.name, dir=project_dir)
    first = (project.dir / "docs" / "plan.md").read_text()
    assert "budget is 15k all in" in first and "12k" not in first

    page.goto(f"{bench.url}/projects/{project.id}")
    pane = page.locator("#deliverable")
    pane.locator("#panel .deliverable", has_text="budget is 15k all in").wait_for()
    page.fill("#message", CHANGE)
    page.locator('#actions [data-action="revise"]').click()
    page.locator("#feedback", has_text="Revision 2 started").wait_for(timeout=30_000)

    said = _cli(bench, "continue", project.id, "--auto-confirm")
    assert read_status(project.dir).phase is Phase.DONE, said
    assert current_revision(project.dir) == 2

    page.reload()
    pane.locator("#pane-head .revision", has_text="revision 2").wait_for()
    shown = pane.locator("#panel .deliverable").inner_text()
    assert "budget is 12k all in" in shown and "budget is 15k" not in shown
    assert f"“{CHANGE}”" in shown, "the plan's Summary quotes the request"
    assert "changed nothing" not in page.locator("#messages").inner_text()
    _shot(page, "after-done-06-revision-2-done", full_page=False)  # the screen, as a person sees it

    page.goto(f"{bench.url}/projects/{project.id}/history")
    rebuilt = page.locator('#history li[data-item="r2-phase3"]')
    rebuilt.wait_for()
    assert "revision 2" in rebuilt.inner_text().lower()
    rebuilt.locator("a.history-diff").click()
    plan = page.locator('#changed .diff-file[data-file="docs/plan.md"]')
    plan.wait_for()
    assert page.locator("#changed .diff-file").first.get_attribute("data-file") == "docs/plan.md"
    assert "15k" in plan.locator("del").all_inner_texts()
    assert "12k" in plan.locator("ins").all_inner_texts()
    _shot(page, "after-done-07-revision-2-diff")
