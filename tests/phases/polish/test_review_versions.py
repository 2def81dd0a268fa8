"""A review belongs to what it read: the deliverable's version, the constraints, the revision.

Through the real polish loop, revise and re-polish, with the scripted agent: a loop that starts
numbering its iterations from 1 again never takes the review a finished loop left behind.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.phases.polish.test_loop import polish, subjects
from tests.polish_setup import CONSTRAINTS, PLAN, calls, polishing_project, review, write_script
from thoughtforge.config import Config
from thoughtforge.core import git_repo
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import read_events
from thoughtforge.core.staging import commit_own
from thoughtforge.core.transition import transition
from thoughtforge.models import HaltReason, Phase
from thoughtforge.phases import human_decisions
from thoughtforge.phases.polish.repolish import check, start_repolish
from thoughtforge.phases.revision import finish_build, start_revision
from thoughtforge.phases.traceability import TRACEABILITY_FILE

REVISED_CRITERION = "Budget stays under 12k"
REVISED = CONSTRAINTS.replace("Budget stays under 15k", REVISED_CRITERION)
OVER_BUDGET = (
    '{"issues": [{"severity": "critical", "description": "The plan still spends 15k, over the '
    'revised 12k limit.", "location": "Section 1", "recommendation": "Cut to 12k."}]}'
)
CUT_TO_12K = PLAN.replace("Steps for 1", "Spend 12k at most")


@pytest.fixture
def scripted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Review 1 is clean (as the first polish's was); in a later loop, review 1 finds the plan
    over the revised budget and the fix cuts it; every later review is clean."""
    script = write_script(
        tmp_path / "script.yaml",
        {"default": review()},
        {"text": CUT_TO_12K},
    )
    monkeypatch.setenv("THOUGHTFORGE_SCRIPT", str(script))


def rescript(tmp_path: Path, reviews: dict[int | str, str]) -> None:
    write_script(tmp_path / "script.yaml", reviews, {"text": CUT_TO_12K})


def revise(project: Project, config: Config, constraints: str, plan: str) -> None:
    """A revision as `revise` starts it, then its Phase 2 and Phase 3 as their ends leave the
    files: the revised constraints and plan committed, the project polishing again."""
    start_revision(project, config, "The budget is 12k now, not 15k.")
    (project.docs_dir / "constraints.md").write_text(constraints)
    (project.docs_dir / "plan.md").write_text(plan)
    transition(project, Phase.BUILDING)
    finish_build(project)
    commit_own(project.dir, "Phase 3 complete: revision 2")
    transition(project, Phase.POLISHING)


@pytest.mark.usefixtures("scripted")
def test_a_revision_gets_its_own_review_though_its_loop_numbers_from_1_again(
    config: Config, tmp_path: Path
) -> None:
    """The first polish ends `done` at 1 on a clean review. The revision lowers the budget but
    its rebuild leaves the plan as it was (the change absent). Before: the revision's polish
    found `review.json` of iteration 1 and reused it (only the iteration was checked, and
    revise resets it): `done` at 1, the revised plan never reviewed. Now review 1 of the
    revision is asked, finds the plan over the new budget, the fix cuts it: `done` at 2."""
    project = polishing_project(config)
    (project.docs_dir / "spec.md").write_text("# Spec: Wedding\n\n## Objective\n\nA wedding.\n")
    commit_own(project.dir, "spec")
    assert polish(project, config).iteration == 1
    under_12k = [
        {"criterion": 1, "section": "Section 1", "quote": "Spend 12k at most"},
        {"criterion": 2, "section": "Section 2", "quote": "A rain plan exists"},
    ]
    rescript(tmp_path, {1: OVER_BUDGET, "default": review(evidence=under_12k)})
    revise(project, config, REVISED, PLAN)

    outcome = polish(project, config)

    assert (outcome.verdict, outcome.iteration) == ("done", 2), outcome.reason
    assert calls(project)["plan-review"] == 3, "the revision's two reviews were asked"
    stale = [e for e in read_events(project.dir) if e["event"] == "stored_review_stale"]
    assert stale and stale[0]["why"] == "it belongs to revision 1"
    assert "Spend 12k at most" in (project.docs_dir / "plan.md").read_text()
    trace = (project.dir / TRACEABILITY_FILE).read_text()
    assert REVISED_CRITERION in trace and "under 15k" not in trace, "re-traced"


@pytest.mark.usefixtures("scripted")
@pytest.mark.parametrize("edited", ["constraints", "plan"])
def test_a_re_polish_reviews_what_changed_instead_of_reusing_the_last_review(
    config: Config, tmp_path: Path, edited: str
) -> None:
    """A done project whose constraints (or plan) the person edited is polished again from
    iteration 1. Before: the last polish's review of iteration 1 was reused, so the edit was
    never reviewed: `done` at once. Now the edit is reviewed."""
    project = polishing_project(config)
    assert polish(project, config).iteration == 1
    if edited == "constraints":
        (project.docs_dir / "constraints.md").write_text(REVISED)
    else:
        (project.docs_dir / "plan.md").write_text(PLAN.replace("Goal 2", "Goal two, moved"))
    rescript(tmp_path, {1: OVER_BUDGET, "default": review()})
    start_repolish(project, check(project, config))

    outcome = polish(project, config)

    assert (outcome.verdict, outcome.iteration) == ("done", 2), outcome.reason
    assert calls(project)["plan-review"] == 3
    assert subjects(project)[-4].startswith("review #1: 1 critical")


def test_a_fix_written_before_a_failed_record_keeps_its_review(
    config: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The recovery a content hash must not break: a review, then its fix written, then the
    halt commits both; on resume the review is the one whose fix made this version: reused,
    and its fix kept (`fixed_to`). Before: the review was reused but the committed fix was not
    seen, the fixer was asked again, returned the same plan, and the loop halted as idle."""
    rescript(tmp_path, {1: review(1, 1, 0), "default": review()})
    monkeypatch.setenv("THOUGHTFORGE_SCRIPT", str(tmp_path / "script.yaml"))
    project = polishing_project(config)
    real_commit = git_repo.commit

    def failing(path: Path, message: str, *args: object, **kw: object) -> object:
        if message.startswith("fix #1"):
            raise OSError("disk full")
        return real_commit(path, message, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(git_repo, "commit", failing)
    assert polish(project, config).halt_reason is HaltReason.FILE_SYSTEM_ERROR
    monkeypatch.setattr(git_repo, "commit", real_commit)
    human_decisions.apply(project, "resume")
    resumed = polish(project, config)
    assert resumed.verdict == "done", resumed.reason
    assert calls(project)["plan-review"] == 2
