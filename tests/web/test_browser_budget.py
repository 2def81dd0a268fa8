"""Spend and budget in the workbench, in a real browser under a real `thoughtforge up`: the budget
set on New Project, the spend in the header and the cost of each polish iteration beside its
counts, and a `budget_exhausted` halt whose form raises the budget and resumes to done.

Screenshots in `test-artifacts/web/` (20-…).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from tests.polish_setup import ECHO_FIX, polishing_project, review
from tests.stack.conftest import BIN, REPO, Stack, running, wait_for
from tests.web import test_browser
from tests.web.test_browser import _asked, _button, _prepared, _shot
from thoughtforge.config import load_config
from thoughtforge.core.spend.ledger import Budget, read_usage, set_budget
from thoughtforge.core.state import read_status
from thoughtforge.models import HaltReason, Phase

pytestmark = pytest.mark.slow
page = test_browser.page  # the same browser tab, its errors checked


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    tmp_path = tmp_path_factory.mktemp("budget-stack")
    script = tmp_path / "payer.yaml"
    reviews = {1: review(3, 4, 4), 2: review(2, 3, 3), 3: review(1, 2, 2), "default": review()}
    steps = {
        "plan-review": {"by_iteration": {k: {"text": v} for k, v in reviews.items()}},
        "plan-fix": ECHO_FIX,
    }
    script.write_text(yaml.safe_dump({"steps": steps}))
    stack = Stack(tmp_path, human={"hold_seconds": 120}, budget={"max_usd": 40})
    data = yaml.safe_load(stack.config.read_text())
    data["agents"]["available"]["payer"] = {
        "command": str(BIN / "thoughtforge-scripted-agent"),
        "flags": ["--script", str(script)],
        "max_tokens": 1000,
        "price_per_million_tokens": {"input": 1000.0, "output": 1000.0},
    }
    stack.config.write_text(yaml.safe_dump(data))
    with running(stack):
        yield stack


def test_new_project_takes_a_budget_and_the_config_default_is_shown(
    stack: Stack, page: Any
) -> None:
    page.goto(f"{stack.web}/projects/new")
    assert "$40.00 (the config's budget)" in page.inner_text("#budget-help")
    page.fill("#brain-dump", (REPO / "examples" / "wedding-plan.md").read_text())
    page.fill("#budget-usd", "2.5")
    _shot(page, "20-new-project-budget")
    page.click("button[type=submit]")
    page.wait_for_url("**/projects/2*")
    project = stack.projects / page.url.rstrip("/").rsplit("/", 1)[1]
    assert read_usage(project).budget == Budget(max_usd=2.5)
    page.locator("#project-header .spend", has_text="/ $2.50").wait_for(timeout=60_000)
    page.locator("#budget-form summary").click()  # and later, at any step, from the thread
    page.fill("#budget-usd", "3.75")
    page.click("#budget-set")
    page.locator("#project-header .spend", has_text="/ $3.75").wait_for(timeout=60_000)
    assert read_usage(project).budget == Budget(max_usd=3.75)
    _shot(page, "20b-budget-set-from-the-thread")


def test_a_budget_halt_shows_the_spend_and_its_form_raises_the_budget_and_resumes(
    stack: Stack, page: Any
) -> None:
    project = _prepared(stack, polishing_project, "payer")
    set_budget(project.dir, Budget(max_usd=3.0))
    page.goto(f"{stack.web}/projects/{project.id}")
    _button(page, "start").click()
    _asked(page, project.dir, "PolishHaltDecision")
    assert read_status(project.dir).halt_reason is HaltReason.BUDGET_EXHAUSTED
    header = page.inner_text("#project-header")
    assert "budget exhausted" in header and "spent $" in header and "/ $3.00" in header, header
    field = page.locator("#raise-budget")
    assert "of $3.00" in page.inner_text("#budget-now")
    costs = page.locator("table.costs td.cost")
    assert costs.count() >= 1 and costs.first.inner_text().startswith("$")
    _shot(page, "21-budget-halt")

    field.fill("100")
    _button(page, "resume").click()
    page.locator("#project-header .phase", has_text="done").wait_for(timeout=180_000)
    wait_for(lambda: read_status(project.dir).phase is Phase.DONE, "the loop to finish")
    assert read_usage(project.dir).budget == Budget(max_usd=100.0)
    page.reload()
    assert "/ $100.00" in page.inner_text("#project-header .spend")
    iterations = page.locator("table.costs tbody tr")
    assert iterations.count() >= 4
    assert all(
        cell.startswith("$") for cell in page.locator("table.costs td.cost").all_inner_texts()
    )
    _shot(page, "22-budget-raised-done")
    assert load_config(stack.config).budget.max_usd == 40
