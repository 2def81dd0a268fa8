"""The review prompt within the reviewer's window: the acceptance criteria are never cut.

Through the real polish loop, with a reviewer (`tests/agents/criteria_reviewer.py`) that judges
by the criteria its prompt shows, as a model does: a plan over its budget is found only when
the budget criterion reaches it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import AGENTS_DIR
from tests.polish_setup import polishing_project, write_script
from thoughtforge.config import CommandAgentSpec, Config
from thoughtforge.core.project_log import read_events
from thoughtforge.models import HaltReason
from thoughtforge.phases.polish.loop import PolishLoop
from thoughtforge.phases.polish.review_prompt import around_criteria
from thoughtforge.prompting import estimate_tokens

CRITERIA = (
    "## Acceptance Criteria\n\n- The total budget is at most 2,500 EUR\n"
    "- Vendors confirm in writing\n"
)
CONTEXT = " ".join(
    f"The couple's priority {n} is a calm day with a short walk between venue {n} and "
    f"the garden, a meal for {40 + n} guests and music chosen by their friends."
    for n in range(1, 36)
)
CONSTRAINTS = (
    "# Constraints: Wedding\n\n## Context\n\n"
    + CONTEXT
    + "\n\n## Deliverable Type\n\nPlan\n\n"
    + CRITERIA
)


def budget_plan(total: str) -> str:
    """A plan of about 5,000 tokens whose first section states its total."""
    sections = []
    for n in range(1, 6):
        rows = [f"| Budget | Total: {total} EUR across every vendor | Check the invoices |"] * (
            n == 1
        )
        rows += [
            f"| Item {n}.{k} | Book vendor {n * 31 + k} for task {k} of part {n}, confirming "
            f"by phone | Confirmed in writing by day {k + n} |"
            for k in range(1, 37)
        ]
        table = "\n".join(rows)
        sections.append(
            f"## Section {n}\n\n| Objective | Plan | Assessment |\n| --- | --- | --- |\n{table}\n"
        )
    return "# Wedding plan\n\n" + "\n".join(sections)


@pytest.fixture
def reviewer(
    config: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Callable[[int], Config]:
    """The config with the criteria reviewer as the reviewer, its window `tokens` wide; the
    scripted fixer brings the total to 2,400 EUR."""
    script = write_script(tmp_path / "script.yaml", {}, {"text": budget_plan("2,400")})
    monkeypatch.setenv("THOUGHTFORGE_SCRIPT", str(script))

    def window(tokens: int) -> Config:
        config.agents.available["criteria"] = CommandAgentSpec(
            command=str(AGENTS_DIR / "criteria_reviewer.py"), context_window_tokens=tokens
        )
        config.polish.reviewer_agent = "criteria"
        return config

    return window


def fix_prompts(project_dir: Path) -> list[str]:
    folder = project_dir / ".scripted-agent" / "prompts"
    return [p.read_text() for p in sorted(folder.glob("*-plan-fix.md"))]


def test_a_review_prompt_that_fits_is_not_cut_and_the_plan_over_budget_is_found(
    reviewer: Callable[[int], Config],
) -> None:
    """About 6,650 tokens of 8,000. Before: the constraints were cut to the window less the
    plan and a guess of 2,000 tokens, from their end, where the criteria stand: the reviewer
    never saw the 2,500 EUR limit and the 3,100 EUR plan ended `done` at iteration 1. The
    whole prompt fits, so nothing is cut: the reviewer finds the budget over its limit, the
    fixer brings it to 2,400 EUR, and review 2 ends it: `done` at 2."""
    config = reviewer(8_000)
    project = polishing_project(config, budget_plan("3,100"), CONSTRAINTS)
    whole = estimate_tokens(budget_plan("3,100") + CONSTRAINTS)
    assert 6_000 < whole < 7_000, whole

    outcome = PolishLoop(project, config).run()

    assert (outcome.verdict, outcome.iteration) == ("done", 2), outcome.reason
    fixed = fix_prompts(project.dir)
    assert len(fixed) == 1 and "exceeds the limit of 2,500 EUR" in fixed[0]
    assert "Total: 2,400 EUR" in (project.docs_dir / "plan.md").read_text()
    assert not [e for e in read_events(project.dir) if e["event"] == "review_prompt_cut"]


def test_a_prompt_over_the_window_cuts_the_context_and_keeps_the_criteria(
    reviewer: Callable[[int], Config],
) -> None:
    """6,000 tokens: the Context section is cut, the criteria stay whole and are read."""
    config = reviewer(6_000)
    project = polishing_project(config, budget_plan("3,100"), CONSTRAINTS)

    outcome = PolishLoop(project, config).run()

    assert (outcome.verdict, outcome.iteration) == ("done", 2), outcome.reason
    cut = [e for e in read_events(project.dir) if e["event"] == "review_prompt_cut"]
    assert cut and cut[0]["cut"] == ["constraints"]
    assert "exceeds the limit of 2,500 EUR" in fix_prompts(project.dir)[0]


def test_a_window_too_small_for_the_criteria_and_the_plan_halts_saying_so(
    reviewer: Callable[[int], Config],
) -> None:
    """4,000 tokens cannot hold the plan and its criteria: no review without them. Before: the
    call was refused as a prompt too large, naming no criteria."""
    config = reviewer(4_000)
    project = polishing_project(config, budget_plan("3,100"), CONSTRAINTS)

    outcome = PolishLoop(project, config).run()

    assert (outcome.verdict, outcome.halt_reason) == ("halt", HaltReason.AGENT_FAILURE)
    assert outcome.reason.startswith(
        "The reviewer's window is too small for the acceptance criteria"
    ), outcome.reason
    assert "agents.available.criteria.context_window_tokens" in outcome.reason


# --- the constraints around their criteria -----------------------------------------------------


def test_constraints_that_fit_are_left_as_they_are() -> None:
    fitted = around_criteria(CONSTRAINTS, estimate_tokens(CONSTRAINTS))
    assert (fitted.text, fitted.truncated) == (CONSTRAINTS, False)


@pytest.mark.parametrize("tokens", [0, 40, 300, 900])
def test_cut_constraints_keep_their_criteria_whole_and_last(tokens: int) -> None:
    after = "\n## Exclusions\n\nNo fireworks.\n"
    fitted = around_criteria(CONSTRAINTS + after, tokens)
    assert fitted.truncated
    assert fitted.text.endswith(CRITERIA.strip() + "\n")
    assert fitted.text.startswith("# Con" if tokens else "\n[… truncated")
    assert estimate_tokens(fitted.text) <= max(tokens, estimate_tokens(CRITERIA) + 20)


def test_constraints_without_criteria_are_cut_from_their_end() -> None:
    fitted = around_criteria(CONTEXT, 50)
    assert fitted.truncated and fitted.text.startswith(CONTEXT[:100])
