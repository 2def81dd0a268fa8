"""Starting a revision on a real project folder and repo: what it records; every refusal (a run
on the project, a terminated or unfinished project, no words) leaves the project as it was."""

from __future__ import annotations

import git
import pytest

from tests.build_setup import building_project
from thoughtforge.config import Config
from thoughtforge.core.project import Project
from thoughtforge.core.revisions import read_revisions
from thoughtforge.core.run_lock import hold_run_lock
from thoughtforge.core.state import read_chat, read_status, write_status
from thoughtforge.models import HaltReason, Phase
from thoughtforge.phases.revision import (
    RevisionRefused,
    awaits_revised_proposal,
    refuse_while_a_run_works,
    start_revision,
)

CHANGE = "Make it a two-weekend build."


@pytest.fixture
def done(config: Config) -> Project:
    project = building_project(config)
    status = read_status(project.dir).model_copy(update={"phase": Phase.DONE})
    write_status(project.dir, status)
    return project


def test_a_revision_records_the_change_tags_its_start_and_reopens_phase_two(
    done: Project, config: Config
) -> None:
    revision = start_revision(done, config, CHANGE)
    assert revision.number == 2 and read_revisions(done.dir).current == 2
    assert read_status(done.dir).phase is Phase.SPEC_BUILDING
    repo = git.Repo(done.dir)
    assert repo.tags["thoughtforge-revision-2"].commit.summary.startswith("Revision 2 begins")
    chat = read_chat(done.dir)
    assert [m.role for m in chat] == ["system", "ai", "human"]
    assert "Deliverable Overview" in chat[1].content and chat[2].content == CHANGE
    assert awaits_revised_proposal(done)
    assert read_revisions(done.dir).latest == revision


def test_a_rerun_of_the_same_flow_run_starts_no_second_revision(
    done: Project, config: Config
) -> None:
    first = start_revision(done, config, CHANGE, run_id="run-1")
    assert start_revision(done, config, CHANGE, run_id="run-1") == first
    assert read_revisions(done.dir).current == 2


def test_a_run_on_the_project_refuses_a_revision_by_name(done: Project) -> None:
    with hold_run_lock(done), pytest.raises(RevisionRefused, match="flow run 'Garden Shed · done'"):
        refuse_while_a_run_works(done, "revise")


@pytest.mark.parametrize(
    ("update", "said"),
    [
        ({"phase": Phase.HALTED, "halt_reason": HaltReason.HUMAN_TERMINATED}, "thoughtforge run"),
        ({"phase": Phase.POLISHING}, "a change request is for a done or halted project"),
    ],
)
def test_a_terminated_or_unfinished_project_refuses_and_is_left_as_it_was(
    done: Project, config: Config, update: dict[str, object], said: str
) -> None:
    write_status(done.dir, read_status(done.dir).model_copy(update=update))
    before = (read_status(done.dir), read_chat(done.dir))
    with pytest.raises(RevisionRefused, match=said):
        start_revision(done, config, CHANGE)
    assert (read_status(done.dir), read_chat(done.dir)) == before
    assert read_revisions(done.dir).current == 1


def test_a_change_request_without_words_is_refused(done: Project, config: Config) -> None:
    with pytest.raises(RevisionRefused, match="needs words"):
        start_revision(done, config, "  \n")
