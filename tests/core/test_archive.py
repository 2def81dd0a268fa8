"""Archive: which projects may go (finished, terminated, halted), never one a run works on; out of
the active count and the inbox's lists, back on unarchive or on any phase change."""

from __future__ import annotations

import os

import git
import pytest

from tests.conftest import BRAIN_DUMP
from thoughtforge.actions.archiving import archive_project
from thoughtforge.actions.inbox import inbox
from thoughtforge.actions.run_state import working_run
from thoughtforge.config import Config
from thoughtforge.core.archive import ArchiveRefused, archive, unarchive
from thoughtforge.core.creation import create_project
from thoughtforge.core.project import Project, list_projects
from thoughtforge.core.run_lock import hold_run_lock
from thoughtforge.core.state import read_status, write_status
from thoughtforge.core.transition import transition
from thoughtforge.models import HaltReason, Phase


def _project(config: Config, phase: Phase = Phase.DONE) -> Project:
    project = create_project(config, brain_dump=BRAIN_DUMP)
    status = read_status(project.dir).model_copy(update={"phase": phase})
    write_status(project.dir, status)
    return project


def _halted(config: Config, reason: HaltReason = HaltReason.AGENT_FAILURE) -> Project:
    project = _project(config, Phase.BUILDING)
    transition(project, Phase.HALTED, halt_reason=reason)
    return project


def _active(config: Config) -> set[str]:
    return {listing.project.id for listing in list_projects(config) if listing.is_active}


def test_a_finished_project_is_archived_committed_and_brought_back(config: Config) -> None:
    project = _project(config)
    archived = archive(project)
    assert archived.archived_at is not None and read_status(project.dir) == archived
    assert git.Repo(project.dir).head.commit.summary == "Archive the project"
    with pytest.raises(ArchiveRefused, match="archived already"):
        archive(project)
    back = unarchive(project)
    assert back.archived_at is None and back.phase is Phase.DONE
    with pytest.raises(ArchiveRefused, match="not archived"):
        unarchive(project)


def test_a_halted_project_is_parked_out_of_the_active_count(config: Config) -> None:
    halted = _halted(config)
    assert _active(config) == {halted.id}
    archive(halted)
    assert _active(config) == set()
    assert read_status(halted.dir).halt_reason is HaltReason.AGENT_FAILURE  # its halt is kept
    unarchive(halted)
    assert _active(config) == {halted.id}


def test_any_phase_change_brings_an_archived_project_back(config: Config) -> None:
    halted = _halted(config)
    archive(halted)
    transition(halted, Phase.BUILDING)  # a resume
    assert read_status(halted.dir).archived_at is None and _active(config) == {halted.id}


@pytest.mark.parametrize("phase", [Phase.BRAIN_DUMP, Phase.SPEC_BUILDING, Phase.POLISHING])
def test_a_project_in_progress_is_not_archived(config: Config, phase: Phase) -> None:
    project = _project(config, phase)
    with pytest.raises(ArchiveRefused, match=f"in progress \\({phase}\\).*terminate"):
        archive(project)
    assert read_status(project.dir).archived_at is None


def test_a_project_a_run_works_on_is_refused_naming_the_run(config: Config) -> None:
    project = _project(config)
    with pytest.raises(ArchiveRefused, match=r"a run \(brave-otter\) is working on"):
        archive(project, working_run="brave-otter")
    with hold_run_lock(project):
        assert working_run(config, project) == f"the run in pid {os.getpid()}"
        with pytest.raises(ArchiveRefused, match="the run in pid"):
            archive_project(config, project)
    assert working_run(config, project) is None
    assert archive_project(config, project).archived_at is not None


def test_the_inbox_lists_archived_projects_only_under_their_filter(config: Config) -> None:
    done, terminated, halted, working = (
        _project(config),
        _halted(config, HaltReason.HUMAN_TERMINATED),
        _halted(config),
        _project(config, Phase.BUILDING),
    )
    for project in (done, terminated, halted):
        archive(project)
    box = inbox(config)
    assert [e.project_id for e in box.current] == [working.id]
    assert box.terminated == [] and box.waiting == []
    assert {e.project_id for e in box.archived} == {done.id, terminated.id, halted.id}
    assert {e.project_id for e in box.listed} == {working.id}
    assert box.active == 1
