"""Locking Phase 1: intent.md, the project's name and its deliverable type."""

from __future__ import annotations

import git
import pytest

from tests.conftest import BRAIN_DUMP
from tests.phases.conftest import Script, distillation
from thoughtforge.config import Config
from thoughtforge.core.creation import create_project
from thoughtforge.core.state import read_chat, read_status
from thoughtforge.errors import TransitionError
from thoughtforge.models import DeliverableType, Phase
from thoughtforge.phases import intake, intent


def test_confirm_locks_intent_names_the_project_and_starts_phase_two(
    config: Config, script: Script
) -> None:
    script(distillation())
    project = create_project(config, brain_dump=BRAIN_DUMP)
    reply = intake.distill(project, config)

    confirmed = intent.confirm_intent(project, config)

    assert confirmed.project_name == "Plan a small countryside wedding for 60 guests"
    assert confirmed.deliverable_type is DeliverableType.PLAN
    assert confirmed.intent_path == project.dir / "docs" / "intent.md"
    locked = confirmed.intent_path.read_text()
    assert locked.startswith(f"# Intent: {confirmed.project_name}\n\n")
    assert reply.message in locked
    head = git.Repo(project.dir).head.commit
    assert head.summary == "Lock intent.md"
    assert (head.tree / "docs" / "intent.md").data_stream.read().decode() == locked
    status = read_status(project.dir)
    assert (status.phase, status.project_name, status.deliverable_type) == (
        Phase.SPEC_BUILDING,
        confirmed.project_name,
        DeliverableType.PLAN,
    )
    assert read_chat(project.dir) == []


@pytest.mark.parametrize(
    ("objective", "kind_line", "name", "kind"),
    [
        (
            "Build a **command-line tool** that renames photos by date, for me alone",
            "Code — CLI tool",
            "Build a command-line tool that renames photos by date, for…",
            DeliverableType.CODE,
        ),
        ("- ship it", "Plan or Code: unclear", "Ship it", DeliverableType.PLAN),
    ],
)
def test_confirm_derives_a_short_name_and_the_type(
    config: Config, script: Script, objective: str, kind_line: str, name: str, kind: DeliverableType
) -> None:
    script(distillation(objective=objective, deliverable_type=kind_line))
    project = create_project(config, brain_dump=BRAIN_DUMP)
    intake.distill(project, config)

    confirmed = intent.confirm_intent(project, config)

    assert (confirmed.project_name, confirmed.deliverable_type) == (name, kind)
    assert len(confirmed.project_name) <= intent.MAX_NAME_CHARS


def test_confirm_before_review_is_refused_and_writes_nothing(config: Config) -> None:
    project = create_project(config, brain_dump=BRAIN_DUMP)

    with pytest.raises(TransitionError, match="brain_dump"):
        intent.confirm_intent(project, config)

    assert not (project.docs_dir / "intent.md").exists()
    assert read_status(project.dir).phase is Phase.BRAIN_DUMP


def test_a_stale_git_lock_does_not_block_confirming_the_intent(
    config: Config, script: Script
) -> None:
    """Before, an index.lock left by a killed git blocked Phases 1–2 for good."""
    script(distillation())
    project = create_project(config, brain_dump=BRAIN_DUMP)
    intake.distill(project, config)
    (project.dir / ".git" / "index.lock").write_text("")
    intent.confirm_intent(project, config)
    assert git.Repo(project.dir).head.commit.summary == "Lock intent.md"
    assert not (project.dir / ".git" / "index.lock").exists()
