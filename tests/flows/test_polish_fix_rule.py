"""What a plan fix may change, through the polish flow on a real Prefect server: a plan built from
the event template, a reviewer that finds one thing, and a fixer that adds what it lacks the way
models do, as a sentence (the rule the fix prompt states allows it) or as a heading of its own
(asked again once, told what it broke, in the prompt's words)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.build_setup import content, intent
from tests.flows.test_polish_trajectories import halted, prompts, subjects
from tests.polish_setup import calls, polishing_project, review
from thoughtforge.config import load_config
from thoughtforge.core.git_repo import commit
from thoughtforge.core.project import Project
from thoughtforge.core.state import read_chat
from thoughtforge.flows import polish
from thoughtforge.models import HaltReason
from thoughtforge.phases.deliverable.edit_rule import rule_text
from thoughtforge.phases.polish.loop import PolishOutcome
from thoughtforge.plugins.plan.template import load_template
from thoughtforge.plugins.plan.template_selection import TEMPLATES_DIR

EVENT = load_template(TEMPLATES_DIR / "event.hbs")
PLAN = EVENT.render("Wedding", {slot: content(slot) for slot in EVENT.slot_ids}).strip() + "\n"
BUDGET_ROW = next(line for line in PLAN.splitlines() if "budget.objective" in line)
RESERVE = "The best man holds the budget reserve and signs off any spend from it."
BUDGET_SECTION = next(
    line.lstrip("# ").strip()
    for line in reversed(PLAN[: PLAN.index(BUDGET_ROW)].splitlines())
    if line.startswith("## ")
)
CRITERIA = "## Acceptance Criteria\n- The plan states what the budget is for\n"
EVIDENCE = [{"criterion": 1, "section": BUDGET_SECTION, "quote": BUDGET_ROW.split("|")[1].strip()}]
"""Every review's evidence: the budget row, which no fix here changes (the criterion holds)."""
WITH_A_SENTENCE = PLAN.replace(BUDGET_ROW, f"{BUDGET_ROW}\n\n{RESERVE}")
WITH_A_HEADING = PLAN.rstrip() + f"\n\n## 7. Extras\n\n{RESERVE}\n"
ADDED_A_HEADING = (
    "the answer adds the section(s) ## 7. Extras, which the document does not have; put that "
    "content under an existing section"
)

Polish = Callable[..., tuple[Project, PolishOutcome]]


def fix_subject(project: Project, n: int) -> str:
    return next(s for s in subjects(project) if s.startswith(f"fix #{n}:"))


@pytest.fixture
def polish_event_plan(
    tmp_path: Path,
    cli_config: Callable[..., Path],
    prefect_api_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> Polish:
    """Polish an event-template plan through the flow: a critical finding in each of the first
    `critical_rounds` reviews, then none."""

    def run(fix: Any, critical_rounds: int = 1) -> tuple[Project, PolishOutcome]:
        config_path = cli_config(polish={"max_iterations": 8})
        project = polishing_project(load_config(config_path), plan=PLAN, constraints=CRITERIA)
        (project.docs_dir / "intent.md").write_text(intent("Plan — event"))
        commit(project.dir, "The intent names the event template")
        reviews: dict[int | str, str] = {"default": review(evidence=EVIDENCE)}
        reviews.update(
            {
                n: review(1, 0, 0, f"round{n}", evidence=EVIDENCE)
                for n in range(1, critical_rounds + 1)
            }
        )
        steps = {
            "plan-review": {"by_iteration": {k: {"text": v} for k, v in reviews.items()}},
            "plan-fix": fix,
        }
        script = tmp_path / "script.yaml"
        script.write_text(yaml.safe_dump({"steps": steps}))
        monkeypatch.setenv("THOUGHTFORGE_SCRIPT", str(script))
        return project, polish.polish_in_process(project.id, config_path, wait_for_human=False)

    return run


def test_a_fix_that_adds_a_sentence_to_a_section_reaches_done(polish_event_plan: Polish) -> None:
    """Before: refused twice ('the plan does not follow template 'event' … 36 non-blank lines
    where the template has 35') and the run halted fix_output_invalid."""
    project, outcome = polish_event_plan({"text": WITH_A_SENTENCE})

    assert outcome.verdict == "done", outcome.reason
    assert (project.docs_dir / "plan.md").read_text() == WITH_A_SENTENCE
    assert calls(project)["plan-fix"] == 1
    assert rule_text() in prompts(project, "plan-fix")[0], "the prompt states the rule"


def test_a_fix_that_adds_a_heading_is_asked_again_once_with_the_rule(
    polish_event_plan: Polish,
) -> None:
    """Before: the fix was refused outright, and a second such fix halted fix_output_invalid."""
    project, outcome = polish_event_plan([{"text": WITH_A_HEADING}, {"text": WITH_A_SENTENCE}])

    assert outcome.verdict == "done", outcome.reason
    assert (project.docs_dir / "plan.md").read_text() == WITH_A_SENTENCE
    asked, again = prompts(project, "plan-fix")
    assert f"could not be used: {ADDED_A_HEADING}." in again
    assert again.endswith(f"keeping to this:\n{rule_text()}")
    assert ADDED_A_HEADING not in asked
    said = [m.content for m in read_chat(project.dir)]
    assert any(ADDED_A_HEADING in text and "rejected/" in text for text in said)
    assert fix_subject(project, 1).startswith("fix #1: docs/plan.md updated")


def test_a_fixer_that_keeps_adding_headings_is_refused_after_its_one_re_ask(
    polish_event_plan: Polish,
) -> None:
    project, outcome = polish_event_plan({"text": WITH_A_HEADING}, critical_rounds=2)

    halted(project, outcome, HaltReason.FIX_OUTPUT_INVALID, 2)
    assert (project.docs_dir / "plan.md").read_text() == PLAN
    assert calls(project)["plan-fix"] == 4, "each iteration's fix was asked again once"
    said = f"fix #1: refused: {ADDED_A_HEADING} (asked again once)"
    assert fix_subject(project, 1).startswith(said)
