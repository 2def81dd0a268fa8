"""The board in a real browser on a phone (390×844): the empty columns fold to a row of titles so
the projects are on the first screen; a revised project's card says its revision; the polish line
reads as numbers with a label. The screenshot goes to `test-artifacts/web/`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_board import _TO_POLISHING, real_projects
from tests.web.conftest import Bench
from thoughtforge.core.creation import create_project
from thoughtforge.core.revisions import Revision, Revisions, write_revisions
from thoughtforge.core.transition import transition
from thoughtforge.models import DeliverableType, Phase

pytestmark = pytest.mark.slow
SHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    page = browser.new_page(viewport=PHONE)
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    page.close()
    assert errors == [], errors


def test_the_board_on_a_phone_shows_the_projects_on_the_first_screen(
    bench: Bench, phone: Any
) -> None:
    projects = real_projects(bench.config)
    revised = create_project(bench.config, agent="demo")
    for phase in (*_TO_POLISHING, Phase.POLISHING, Phase.DONE):
        transition(revised, phase, project_name="Shed", deliverable_type=DeliverableType.PLAN)
    write_revisions(revised.dir, Revisions(revisions=[Revision(number=2, change="x", built=True)]))

    phone.goto(f"{bench.url}/board")
    phone.locator(f'.card[data-project-id="{revised.id}"]').wait_for()
    SHOTS.mkdir(parents=True, exist_ok=True)
    phone.screenshot(path=str(SHOTS / "board-phone.png"))

    empty = phone.locator(".column.is-empty")
    assert empty.count() == 3  # distilling's card is halted there; review, spec, building empty
    for index in range(empty.count()):
        box = empty.nth(index).bounding_box()
        assert box is not None and box["height"] < 40 and box["width"] < PHONE["width"] / 2
    for project in (projects["Wedding"], revised):
        card = phone.locator(f'.card[data-project-id="{project.id}"]').bounding_box()
        assert card is not None and card["y"] < PHONE["height"], f"{project.id} is off screen"
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    card = phone.locator(f'.card[data-project-id="{revised.id}"]')
    assert card.locator(".revision-tag").inner_text() == "revision 2"
    wedding = phone.locator(
        f'.card[data-project-id="{projects["Wedding"].id}"] .polish'
    ).inner_text()
    assert wedding == "Issues found per polish iteration: 9 → 5 → 3 (iteration 3)"

    phone.set_viewport_size({"width": 1300, "height": 900})  # wide: every column keeps its place
    phone.screenshot(path=str(SHOTS / "board-wide.png"))
    building = phone.locator('.column[data-column="building"]').bounding_box()
    polishing = phone.locator('.column[data-column="polishing"]').bounding_box()
    assert building is not None and polishing is not None
    assert building["y"] == polishing["y"] and abs(building["width"] - polishing["width"]) < 1
