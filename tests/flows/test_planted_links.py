"""Symbolic links an agent plants where ThoughtForge's files belong: never followed, never
committed, and the project halts saying which link it met."""

from __future__ import annotations

import shutil
from pathlib import Path

import git

from tests.conftest import BRAIN_DUMP
from tests.phases.conftest import Script, distillation, step_script
from tests.polish_setup import PLAN, polishing_project, review
from thoughtforge.config import Config
from thoughtforge.core.creation import create_project
from thoughtforge.core.state import read_chat, read_status
from thoughtforge.flows.intake import run_intake
from thoughtforge.models import HaltReason, Phase
from thoughtforge.phases import intake
from thoughtforge.phases.polish.loop import PolishLoop


def _halt_of(project_dir: Path) -> tuple[Phase, HaltReason | None]:
    status = read_status(project_dir)
    return status.phase, status.halt_reason


def test_a_docs_link_out_of_the_project_halts_confirm_and_nothing_is_written_there(
    config: Config, tmp_path: Path, monkeypatch
) -> None:
    """Before, confirm wrote /elsewhere/intent.md, then `git add` failed with a traceback and the
    project stayed in human_review."""
    script: Script = step_script(tmp_path, monkeypatch, "brain-dump-intake")
    script(distillation(questions=0))
    project = create_project(config, brain_dump=BRAIN_DUMP)
    intake.distill(project, config)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.rmtree(project.docs_dir)
    project.docs_dir.symlink_to(elsewhere)
    run_intake(project, config, auto_confirm=True)
    assert _halt_of(project.dir) == (Phase.HALTED, HaltReason.FILE_SYSTEM_ERROR)
    assert list(elsewhere.iterdir()) == []
    told = read_chat(project.dir)[-1].content
    assert f"{project.docs_dir}: is a symbolic link (to {elsewhere})" in told


def test_a_plan_linked_out_of_the_project_is_never_read_or_committed(
    config: Config, tmp_path: Path, monkeypatch
) -> None:
    """Before, `docs/plan.md → /outside/file` during review reached `done` with the link
    committed as the deliverable."""
    path = tmp_path / "script.yaml"
    path.write_text(f"steps:\n  plan-review:\n    text: '{review(0, 0, 0)}'\n")
    monkeypatch.setenv("THOUGHTFORGE_SCRIPT", str(path))
    project = polishing_project(config)
    outside = tmp_path / "outside.md"
    outside.write_text(PLAN + "\nsecret notes of someone else\n")
    plan = project.docs_dir / "plan.md"
    plan.unlink()
    plan.symlink_to(outside)
    outcome = PolishLoop(project, config).run()
    assert outcome.halt_reason is HaltReason.FILE_SYSTEM_ERROR
    assert f"{plan}: is a symbolic link" in outcome.reason
    repo = git.Repo(project.dir)
    linked = [
        item.path
        for commit in repo.iter_commits()
        for item in commit.tree.traverse()
        if item.mode == 0o120000
    ]
    assert linked == [], "no commit holds a link"
    prompts = "".join(p.read_text() for p in (project.dir / ".scripted-agent").rglob("*.md"))
    assert "secret notes" not in prompts, "the outside file never reached the agent"
