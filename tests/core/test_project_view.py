"""Where a project's run is, read once from the files its state lives in: each place a run can be
(none, starting, working, waiting, suspended, halted, done, archived) from the files a real run
leaves, and what the view says beside it (the wait, the lock's holder, revision, findings)."""

from __future__ import annotations

import os

from thoughtforge.config import Config
from thoughtforge.core.archive import archive
from thoughtforge.core.creation import create_project
from thoughtforge.core.project import Project
from thoughtforge.core.project_view import RunPlace, read_view
from thoughtforge.core.run_lock import hold_run_lock
from thoughtforge.core.run_start import claim_start
from thoughtforge.core.state import PolishState, utc_now, write_polish_state, write_status
from thoughtforge.core.waiting import Waiting, clear_wait, record_wait
from thoughtforge.models import HaltReason, Issue, Phase


def _wait(project: Project, *, away: bool) -> Waiting:
    waiting = Waiting(
        key="k1",
        kind="ReviewTurn",
        phase=Phase.HUMAN_REVIEW,
        chat_length=1,
        since=utc_now(),
        away=away,
    )
    return record_wait(project.dir, waiting)


def _phase(project: Project, phase: Phase, reason: HaltReason | None = None) -> None:
    status = project.status().model_copy(
        update={
            "phase": phase,
            "halt_reason": reason,
            "halted_from": Phase.BUILDING if reason else None,
        }
    )
    write_status(project.dir, status)


def test_a_new_project_has_no_run_and_waits_for_nothing(config: Config) -> None:
    view = read_view(create_project(config, brain_dump="x"))
    assert view.run is RunPlace.NONE
    assert (view.waiting, view.claim, view.locked, view.works) == (None, None, False, False)
    assert view.revision == 1 and view.open_findings is None


def test_a_claimed_start_is_starting_and_works(config: Config) -> None:
    project = create_project(config, brain_dump="x")
    claim_start(project, "start")
    view = read_view(project)
    assert view.run is RunPlace.STARTING and view.works and view.holds


def test_a_held_lock_is_working_and_names_its_holder(config: Config) -> None:
    project = create_project(config, brain_dump="x")
    with hold_run_lock(project):
        view = read_view(project)
        assert view.run is RunPlace.WORKING
        assert view.holder == f"pid {os.getpid()}" and view.works
    assert read_view(project).run is RunPlace.NONE


def test_a_recorded_wait_is_waiting_or_suspended_by_whether_its_process_stayed(
    config: Config,
) -> None:
    project = create_project(config, brain_dump="x")
    asked = _wait(project, away=False)
    view = read_view(project)
    assert view.run is RunPlace.WAITING and view.waiting == asked
    assert view.holds and not view.works
    _wait(project, away=True)
    assert read_view(project).run is RunPlace.SUSPENDED
    claim_start(project, "wake")  # an answer wakes it: starting until it holds the lock
    assert read_view(project).run is RunPlace.STARTING
    clear_wait(project.dir)


def test_halted_done_and_archived_projects(config: Config) -> None:
    project = create_project(config, brain_dump="x")
    _phase(project, Phase.HALTED, HaltReason.AGENT_FAILURE)
    assert read_view(project).run is RunPlace.HALTED
    _wait(project, away=True)  # a halt decision asked by a run that suspended
    assert read_view(project).run is RunPlace.SUSPENDED
    clear_wait(project.dir)
    _phase(project, Phase.DONE)
    assert read_view(project).run is RunPlace.DONE
    archive(project)
    view = read_view(project)
    assert view.run is RunPlace.ARCHIVED and not view.holds


def test_open_findings_are_the_last_reviews_issues(config: Config) -> None:
    project = create_project(config, brain_dump="x")
    issue = Issue(severity="medium", description="a gap")
    write_polish_state(project.dir, PolishState(iteration=2, last_issues=[issue, issue]))
    assert read_view(project).open_findings == 2
