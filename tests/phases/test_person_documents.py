"""The person's documents are the person's, in plan mode and in Phases 1–2 too: an agent that
edits `constraints.md` or `intent.md` during its step has the edit put back before the step is
judged or committed, while the person's own hand edit between iterations is kept."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.conftest import BRAIN_DUMP
from tests.phases.conftest import distillation
from tests.phases.test_spec import INTENT, proposal, spec_building_project
from tests.polish_setup import CONSTRAINTS, ECHO_FIX, polishing_project, review, write_script
from thoughtforge.config import Config
from thoughtforge.core import git_repo
from thoughtforge.core.creation import create_project
from thoughtforge.core.project_log import read_events
from thoughtforge.core.state import read_chat
from thoughtforge.phases import intake, spec
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


def test_phase_1_and_2_agents_that_write_the_persons_documents_are_put_back(
    config: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before, a Phase 1–2 agent's call was not inside `agent_at_work`: a spec agent that
    rewrote the locked intent kept its edit, and a distilling one could plant a spec."""
    hijack = {"docs/intent.md": "hijacked\n", "docs/spec.md": "an agent's spec\n"}
    steps = {
        "brain-dump-intake": {"text": distillation(), "write": hijack},
        "spec-building": {"text": proposal(), "write": hijack},
    }
    (tmp_path / "script.yaml").write_text(yaml.safe_dump({"steps": steps}))
    monkeypatch.setenv("THOUGHTFORGE_SCRIPT", str(tmp_path / "script.yaml"))
    distilling = create_project(config, brain_dump=BRAIN_DUMP)
    specifying = spec_building_project(config)

    intake.distill(distilling, config)
    spec.propose(specifying, config)

    assert not (distilling.dir / "docs/intent.md").exists()
    assert not (distilling.dir / "docs/spec.md").exists()
    assert (specifying.dir / "docs/intent.md").read_text() == INTENT
    assert not (specifying.dir / "docs/spec.md").exists()
    for project, step in ((distilling, "brain-dump-intake"), (specifying, "spec-building")):
        reverted = [e for e in read_events(project.dir) if e["event"] == "agent_edit_reverted"]
        assert [(e["step"], set(e["files"])) for e in reverted] == [(step, set(hijack))]
        said = [m.content for m in read_chat(project.dir) if m.role == "system"]
        assert any(f"during {step}; the change was put back" in m for m in said)
