"""The person's documents are the person's, in plan mode too: an agent that edits
`constraints.md` or `intent.md` during its step has the edit put back before the step is judged
or committed, while the person's own hand edit between iterations is kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.polish_setup import CONSTRAINTS, ECHO_FIX, polishing_project, review, write_script
from thoughtforge.config import Config
from thoughtforge.core import git_repo, read_events
from thoughtforge.phases.person_documents import put_back, snapshot
from thoughtforge.phases.polish.loop import PolishLoop

GAMED = "## Acceptance Criteria\n- Anything goes\n"


def test_a_plan_fixer_that_rewrites_the_constraints_is_put_back_and_never_committed(
    config: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fix = {**ECHO_FIX, "write": {"docs/constraints.md": GAMED, "docs/intent.md": "hijacked\n"}}
    script = write_script(tmp_path / "s.yaml", {1: review(critical=1), "default": review()}, fix)
    monkeypatch.setenv("THOUGHTFORGE_SCRIPT", str(script))
    project = polishing_project(config)
    intent_before = (
        (project.dir / "docs/intent.md").read_text()
        if (project.dir / "docs/intent.md").exists()
        else None
    )
    hand_edit = CONSTRAINTS.replace("under 15k", "under 15k in total")  # the plan meets it
    (project.dir / "docs/constraints.md").write_text(hand_edit)  # the person's, before the loop

    outcome = PolishLoop(project, config).run()

    assert outcome.verdict == "done", outcome.reason
    assert (project.dir / "docs/constraints.md").read_text() == hand_edit
    repo = git_repo._repo(project.dir)
    history = repo.git.log("-p", "--format=", "--", "docs/constraints.md", "docs/intent.md")
    assert "Anything goes" not in history and "hijacked" not in history
    intent_now = (
        (project.dir / "docs/intent.md").read_text()
        if (project.dir / "docs/intent.md").exists()
        else None
    )
    assert intent_now == intent_before
    reverted = [e for e in read_events(project.dir) if e["event"] == "agent_edit_reverted"]
    assert [e["step"] for e in reverted] == ["plan-fix"]
    assert set(reverted[0]["files"]) == {"docs/constraints.md", "docs/intent.md"}


def test_put_back_restores_a_file_a_link_or_a_folder_left_in_a_documents_place(
    tmp_path: Path,
) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/spec.md").write_text("the spec\n")
    (tmp_path / "outside.md").write_text("elsewhere\n")
    before = snapshot(tmp_path, ["docs/spec.md", "docs/intent.md"])
    (tmp_path / "docs/spec.md").unlink()
    (tmp_path / "docs/spec.md").symlink_to(tmp_path / "outside.md")
    (tmp_path / "docs/intent.md").mkdir()

    assert put_back(tmp_path, before) == ["docs/spec.md", "docs/intent.md"]
    assert not (tmp_path / "docs/spec.md").is_symlink()
    assert (tmp_path / "docs/spec.md").read_text() == "the spec\n"
    assert not (tmp_path / "docs/intent.md").exists()
    assert (tmp_path / "outside.md").read_text() == "elsewhere\n"
    assert put_back(tmp_path, before) == []
