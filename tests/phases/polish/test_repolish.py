"""Re-polish without Prefect: which done projects are due, and one round of the loop again."""

from __future__ import annotations

from pathlib import Path

import git
import pytest

from tests.phases.polish.test_loop import polish, subjects
from tests.polish_setup import EVIDENCE, polishing_project, review, write_script
from thoughtforge.config import Config
from thoughtforge.core.project import Project
from thoughtforge.core.staging import POLISHED_TAG
from thoughtforge.core.state import read_polish_state, read_status
from thoughtforge.models import Phase
from thoughtforge.phases.polish.repolish import check, check_done_projects, start_repolish

VENUE = {"criterion": 3, "section": "Section 2", "quote": "the barn is booked as the fallback"}
"""The evidence for a third criterion, `- The rain plan names a venue`, once the person adds it."""


@pytest.fixture
def clean_reviews(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_script(tmp_path / "script.yaml", {"default": review(evidence=[*EVIDENCE, VENUE])})
    monkeypatch.setenv("THOUGHTFORGE_SCRIPT", str(path))


def _done(config: Config) -> Project:
    project = polishing_project(config)
    assert polish(project, config).verdict == "done"
    return project


@pytest.mark.usefixtures("clean_reviews")
def test_done_tags_the_polished_commit_and_an_untouched_project_is_not_due(config: Config) -> None:
    project = _done(config)
    repo = git.Repo(project.dir)
    assert repo.tags[POLISHED_TAG].commit == repo.head.commit
    [found] = check_done_projects(config)
    assert (found.project_id, found.due) == (project.id, False)
    assert "unchanged since tag thoughtforge-polished" in found.reason


@pytest.mark.usefixtures("clean_reviews")
def test_an_edited_constraints_file_is_due_and_polished_again(config: Config) -> None:
    edited = _done(config)
    untouched = _done(config)
    with (edited.docs_dir / "constraints.md").open("a") as handle:
        handle.write("- The rain plan names a venue\n")
    due = {c.project_id: c for c in check_done_projects(config)}
    assert due[edited.id].changed == ["docs/constraints.md"]
    assert not due[untouched.id].due

    start_repolish(edited, due[edited.id])
    assert read_status(edited.dir).phase is Phase.POLISHING
    assert read_polish_state(edited.dir).iteration == 0
    assert polish(edited, config).verdict == "done"
    assert subjects(edited)[-3:] == [
        "Re-polish: docs/constraints.md changed",
        "review #1: no issues",
        "Done",
    ]
    assert not check(edited, config).due  # the tag moved to the new polish
    assert read_status(untouched.dir).phase is Phase.DONE


@pytest.mark.usefixtures("clean_reviews")
def test_an_uncommitted_edit_to_the_plan_counts(config: Config) -> None:
    project = _done(config)
    (project.docs_dir / "plan.md").write_text("# A rewritten plan\n")
    assert check(project, config).changed == ["docs/plan.md"]
