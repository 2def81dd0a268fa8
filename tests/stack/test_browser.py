"""The Prefect UI in a real browser: a deployed run answered only through its Resume forms.

Headless Debian Chromium, driven by Playwright. Each form is photographed before it is submitted
(`test-artifacts/browser/`).
"""

from __future__ import annotations

import pytest

from tests.stack.conftest import REPO, Stack, suspended_at, wait_for
from thoughtforge.core.state import read_chat, read_status
from thoughtforge.core.waiting import current_wait
from thoughtforge.models import Phase

pytestmark = pytest.mark.slow
SHOTS = REPO / "test-artifacts" / "browser"


def _answer(browser, stack: Stack, shot: str, message: str = "", action: str = "") -> str:  # type: ignore[no-untyped-def]
    """Open the run's page, press Resume, fill the form, photograph it, submit; returns the
    form's text."""
    waiting = current_wait(stack.project())
    assert waiting is not None and waiting.page is not None
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        page.goto(waiting.page)
        page.get_by_role("button", name="Resume").click()
        dialog = page.get_by_role("dialog")
        dialog.locator("textarea").first.wait_for()
        if message:
            dialog.locator("textarea").first.fill(message)
        if action:
            _choose(page, dialog.locator(".p-select-button__control"), action)
        text = dialog.inner_text()
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"{shot}.png"))
        _submit(page, dialog, shot)
        return text
    finally:
        page.close()


def _choose(page, select, action: str) -> None:  # type: ignore[no-untyped-def]
    """Pick `action` in the form's select. It opens with the space key (a mouse click opens and
    closes it at once) and shows the choice a moment after the click; a click that lands while
    the list is still opening is lost, so the person picks again, as this does, at most three
    times."""
    from playwright.sync_api import expect

    for attempt in range(3):
        select.focus()
        page.keyboard.press(" ")
        page.get_by_role("option", name=action, exact=True).click()
        try:
            expect(select).to_have_text(action, timeout=5000)
            return
        except AssertionError:
            if attempt == 2:
                raise


def _submit(page, dialog, shot: str) -> None:  # type: ignore[no-untyped-def]
    """Submit until the form closes, at most three times. Prefect's server on SQLite may answer a
    resume "database is locked" when another write got there first (the UI says "Oops.
    Something went wrong."); the whole resume is one transaction and was rolled back, so the
    person submits again, as this does. A form that stays open for another reason fails."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for _ in range(3):
        dialog.get_by_role("button", name="Submit").click()
        try:
            dialog.wait_for(state="hidden")
            return
        except PlaywrightTimeout:
            page.screenshot(path=str(SHOTS / f"{shot}-not-taken.png"))
            if not page.get_by_text("Something went wrong").is_visible():
                break
    raise AssertionError(f"the form stayed open: {dialog.inner_text()[-500:]}")


def test_a_project_reaches_done_through_the_resume_forms(browser, stack: Stack) -> None:  # type: ignore[no-untyped-def]
    brain_dump = REPO / "examples" / "wedding-plan.md"
    started = stack.prefect(
        "deployment", "run", "thoughtforge-pipeline/local", "-p", f"brain_dump=@{brain_dump}"
    )
    assert started.returncode == 0, started.stderr

    wait_for(suspended_at(stack, "IntakeTurn"), "the Phase 1 wait")
    form = _answer(browser, stack, "1-intake", message="The venue is booked for June 14th.")
    assert "choose distill once everything is in" in form.replace("\n", " ")
    assert "realign" not in form and "confirm" not in form
    wait_for(
        lambda: (
            "The venue is booked for June 14th." in [m.content for m in read_chat(stack.project())]
            and suspended_at(stack, "IntakeTurn")()
        ),
        "the message to be taken",
    )
    _answer(browser, stack, "2-intake-distill", action="distill")

    wait_for(suspended_at(stack, "ReviewTurn"), "the intent review")
    form = _answer(browser, stack, "3-review-confirm", action="confirm")
    assert "Objective" in form  # the distillation is shown above the form

    wait_for(suspended_at(stack, "SpecTurn"), "the spec proposal")
    form = _answer(browser, stack, "4-spec-confirm", action="confirm")
    assert "Acceptance Criteria" in form and "distill" not in form

    wait_for(lambda: read_status(stack.project()).phase is Phase.DONE, "done")
    human = [m.content for m in read_chat(stack.project()) if m.role == "human"]
    assert human.count("The venue is booked for June 14th.") <= 1  # consumed once, never twice
    assert {p.name for p in SHOTS.glob("*.png")} >= {
        "1-intake.png", "2-intake-distill.png", "3-review-confirm.png", "4-spec-confirm.png"
    }  # fmt: skip
