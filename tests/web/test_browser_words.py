"""The page's words and buttons belong to the step they were said in, in a real browser (issue 59
items 4, 8 and 9): a confirmation ("Sent.", "Kept: …") goes when the phase moves on, into Phases 3
and 4 and `done`, not only when it fades; after Revise the composer's "press Revise" goes once
Revise is no longer offered; the step's next action is the one primary button (never Send or
Revise); an agent with no price says its dollar budget cannot bind, in the page and on the board.

The page runs on a workbench without a Prefect server, the projects set on disk at the step each
check needs. Headless Debian Chromium driven by Playwright; screenshots in `test-artifacts/web/`.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.phases.conftest import under_review
from tests.phases.test_spec import spec_building_project
from tests.web.conftest import Bench
from tests.web.test_browser_panes import _done_project, _move, _shot
from thoughtforge.core.project import Project
from thoughtforge.core.run_lock import hold_run_lock
from thoughtforge.core.spend.ledger import Budget, Spend, add_call, set_budget
from thoughtforge.core.state import utc_now
from thoughtforge.core.waiting import Waiting, record_wait
from thoughtforge.models import Phase

pytestmark = pytest.mark.slow
PLACEHOLDER = "Write to ThoughtForge…"


def _feedback(page: Any) -> str:
    return str(page.evaluate("() => document.getElementById('feedback').textContent"))


def _kept(page: Any, words: str) -> None:
    """Send `words` with no run to take them: the server keeps them and the line says so."""
    page.fill("#message", words)
    page.locator('#actions [data-action="send"]').click()
    page.locator("#feedback", has_text="Kept").wait_for()


def _waits(project: Project, kind: str, phase: Phase) -> None:
    record_wait(
        project.dir,
        Waiting(key=f"{kind}-1", kind=kind, phase=phase, chat_length=0, since=utc_now()),
    )


def test_a_confirmation_goes_when_the_phase_moves_on(bench: Bench, open_page: Any) -> None:
    project = spec_building_project(bench.config)
    page = open_page("wide")
    page.clock.install()
    page.goto(f"{bench.url}/projects/{project.id}")
    # The page's timers fire only when the test says: a fade cannot clear the line, only the
    # phase moving on can.
    page.clock.pause_at(datetime.now(UTC) + timedelta(seconds=5))
    header = page.locator("#project-header .phase")
    with hold_run_lock(project):  # a run at work through Phases 3 and 4
        _kept(page, "The barn seats 80.")
        for phase, words in (
            (Phase.BUILDING, "Phase 3"),
            (Phase.POLISHING, "Phase 4"),
            (Phase.DONE, "Done"),
        ):
            _move(project, phase)
            header.filter(has_text=words).wait_for()
            assert _feedback(page) == "", f"the last step's confirmation lingers into {phase}"
            if phase is not Phase.DONE:
                _kept(page, f"Noted during {words}.")
    _shot(page, "76-done-without-the-last-steps-words")


def test_after_revise_the_composer_drops_press_revise(bench: Bench, open_page: Any) -> None:
    project = _done_project(bench)
    page = open_page("wide")
    page.goto(f"{bench.url}/projects/{project.id}")
    page.locator("#pane-head button[data-revise]").click()
    assert "press Revise" in (page.get_attribute("#message", "placeholder") or "")
    page.fill("#message", "The budget is 12k now, not 15k.")
    page.locator('#actions [data-action="revise"]').click()
    # the revision commits and tags in git and starts a run: seconds under a loaded disk
    page.locator("#feedback", has_text="Revision 2 started").wait_for(timeout=60_000)
    page.locator('#actions [data-action="revise"]').wait_for(state="detached")
    page.locator('#actions [data-action="send"]').wait_for()
    assert page.get_attribute("#message", "placeholder") == PLACEHOLDER
    _shot(page, "77-revision-started-composer-words")


@pytest.mark.parametrize(
    ("kind", "phase", "primary"),
    [
        (None, Phase.HUMAN_REVIEW, "start"),  # no run: Start it
        ("IntakeTurn", Phase.BRAIN_DUMP, "distill"),
        ("ReviewTurn", Phase.HUMAN_REVIEW, "confirm"),
        ("SpecTurn", Phase.SPEC_BUILDING, "confirm"),
    ],
)
def test_the_steps_next_action_is_the_one_primary_button(
    bench: Bench, open_page: Any, kind: str | None, phase: Phase, primary: str
) -> None:
    project = (
        spec_building_project(bench.config)
        if phase is Phase.SPEC_BUILDING
        else under_review(bench.config)
    )
    _move(project, phase)
    if kind is not None:
        _waits(project, kind, phase)
    page = open_page("wide")
    page.goto(f"{bench.url}/projects/{project.id}")
    buttons = page.locator("#actions button.primary")
    assert buttons.count() == 1 and buttons.get_attribute("data-action") == primary
    page.fill("#message", "A word.")  # with text in the box, Send stays the plain button
    assert page.locator('#actions [data-action="send"]').get_attribute("class") == "action"


def test_done_offers_revise_as_a_plain_button(bench: Bench, open_page: Any) -> None:
    """At done nothing is next: the deliverable is, and Revise is there if wanted."""
    project = _done_project(bench)
    page = open_page("wide")
    page.goto(f"{bench.url}/projects/{project.id}")
    page.locator('#actions [data-action="revise"]').wait_for()
    assert page.locator("#actions button.primary").count() == 0


def test_an_unpriced_agents_dollar_budget_says_it_cannot_bind(bench: Bench, open_page: Any) -> None:
    project = _done_project(bench)
    add_call(project.dir, "building", None, Spend(calls=3, tokens_in=7000, unpriced_calls=3))
    set_budget(project.dir, Budget(max_usd=0.05))
    page = open_page("wide")
    page.goto(f"{bench.url}/projects/{project.id}")
    spent = page.inner_text("#pane-head .spend")
    assert "7,000 tokens" in spent and "$0.05 budget cannot bind" in spent, spent
    assert "$0.00" not in spent
    page.goto(f"{bench.url}/board")
    card = page.locator(f'li.card[data-project-id="{project.id}"]').inner_text()
    assert "7,000 tokens" in card and "$0.00" not in card, card
    _shot(page, "78-board-unpriced-spend")
