"""The draft a door edits outside the page (the CLI's editor, `--from FILE`): handed over only
while the project takes an edit, saved as the page's Save saves it, and a refused edit kept where
the person finds it."""

from __future__ import annotations

import pytest

from tests.phases.conftest import distillation, under_review
from thoughtforge.actions.draft import (
    DraftEdit,
    editable_draft,
    keep_refused_edit,
    save_draft_edit,
)
from thoughtforge.config import Config
from thoughtforge.core.course_claim import claimed
from thoughtforge.errors import ActionRefused, DraftRefused
from thoughtforge.phases.draft_edits import current_draft


def test_the_draft_is_handed_over_to_edit_only_while_nothing_else_moves_the_project(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PREFECT_API_URL", raising=False)  # no server: the files' word stands
    project = under_review(config)
    assert editable_draft(config, project).text == current_draft(project).text
    with claimed(project, "archive"), pytest.raises(ActionRefused, match="cannot be edited now"):
        editable_draft(config, project)


def test_an_edit_is_saved_as_the_draft_and_a_refused_one_is_kept_to_fix(config: Config) -> None:
    project = under_review(config)
    draft = current_draft(project)
    edited = distillation(objective="Plan a small countryside wedding for 80 guests in May.")
    save_draft_edit(project, DraftEdit(text=edited, version=draft.version))
    assert current_draft(project).text == edited.strip()

    broken = edited.replace("## Objective", "## Goal")
    with pytest.raises(DraftRefused):
        save_draft_edit(project, DraftEdit(text=broken, version=current_draft(project).version))
    kept = keep_refused_edit(project, broken)
    assert kept.is_absolute() and kept.parent == project.dir / "rejected"
    assert kept.read_text() == broken
