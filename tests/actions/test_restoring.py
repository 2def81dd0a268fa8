"""Restore as an undo a person can repeat: a project restored to a polish iteration is idle there
(no run, phase polishing), says what Start will do, and can be restored again, forward to its
`done` too; a run working on it still refuses a restore. Real projects, git and polish loop,
with the scripted agent."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.test_after_done_hostile import done_project as plan_done
from tests.consoles import CONSOLES
from tests.core.test_course_claim import held_elsewhere
from tests.polish_setup import polishing_project, review, write_script
from thoughtforge.actions.restoring import restore, restored_point
from thoughtforge.actions.run_state import composer_of
from thoughtforge.cli.status_report import project_detail
from thoughtforge.config import Config
from thoughtforge.core.course_claim import ProjectClaimed
from thoughtforge.core.project import Project
from thoughtforge.core.project_view import read_view
from thoughtforge.core.run_lock import hold_run_lock
from thoughtforge.core.state import read_polish_state, read_status
from thoughtforge.models import Phase
from thoughtforge.phases.polish.loop import PolishLoop
from thoughtforge.phases.revision import RevisionRefused


@pytest.fixture
def done_project(
    config: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Callable[[], Project]:
    def make() -> Project:
        script = write_script(
            tmp_path / "script.yaml", {1: review(2, 4, 6), 2: review(1, 3, 2), 3: review(0, 2, 3)}
        )
        monkeypatch.setenv("THOUGHTFORGE_SCRIPT", str(script))
        project = polishing_project(config)
        assert PolishLoop(project, config).run().verdict == "done"
        return project

    return make


def test_a_restored_project_rests_says_what_start_does_and_can_be_restored_again(
    config: Config, done_project: Callable[[], Project]
) -> None:
    project = done_project()
    plan = project.docs_dir / "plan.md"
    final = plan.read_text()

    back = restore(project, "polish-1")
    assert back.phase is Phase.POLISHING and read_status(project.dir).phase is Phase.POLISHING
    assert read_polish_state(project.dir).iteration == 1
    assert "the project is in polishing and no run works on it" in back.note
    assert "Start polishes on from iteration 2." in back.note
    assert "another restore is allowed" in back.note
    assert restored_point(read_view(project)) == back.label
    console = CONSOLES["plain"](200)
    console.print(project_detail(config, project.id))
    shown = " ".join(console.file.getvalue().split())  # type: ignore[attr-defined]
    assert f"restored to {back.label}: the project is in polishing" in shown
    assert f"Start it: `thoughtforge polish {project.id}`." in shown
    composer = composer_of(read_view(project))
    assert "start" in [action.name for action in composer.actions]
    assert composer.note.startswith(f"Restored {back.label}: the project is in polishing")
    assert "stopped mid-phase" not in composer.note

    # Before, this second restore was refused: "is in polishing: roll back a done or halted
    # project", though no run worked on it.
    forward = restore(project, "phase4")
    assert forward.phase is Phase.DONE and read_status(project.dir).phase is Phase.DONE
    assert plan.read_text() == final
    assert "Nothing is left to run: it is done" in forward.note
    assert restored_point(read_view(project)) == forward.label


def test_a_run_working_on_a_restored_project_refuses_another_restore(
    config: Config, done_project: Callable[[], Project]
) -> None:
    project = done_project()
    restore(project, "polish-1")
    with hold_run_lock(project):
        assert restored_point(read_view(project)) is None, "a run holds it: it is no longer idle"
        with pytest.raises(RevisionRefused, match="is working on it"):
            restore(project, "phase4")
    assert read_status(project.dir).phase is Phase.POLISHING


def test_while_another_process_rolls_back_the_composer_offers_nothing_and_says_what_holds_it(
    config: Config,
) -> None:
    """The page and MCP read the composer: a restore another door is making is named there,
    and a restore asked for meanwhile is refused in the same words."""
    project = plan_done(config)
    with held_elsewhere(project, "rollback") as holder:
        composer = composer_of(read_view(project))
        assert composer.actions == []
        assert composer.note.startswith(f"a rollback started by pid {holder.pid} on this machine")
        with pytest.raises(ProjectClaimed, match=f"pid {holder.pid} on this machine"):
            restore(project, "phase3")
    assert read_status(project.dir).phase is Phase.DONE  # nothing moved
    assert restore(project, "phase3").phase is Phase.POLISHING  # its owner gone, it goes on
