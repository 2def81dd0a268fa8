"""Two change requests at once, from two processes (two CLIs, the page and MCP): one revision is
recorded and started, the other is refused in words before anything moved. A Start racing the
CLI's revise: the revision always runs, in the CLI's own run, and never beside another."""

from __future__ import annotations

import multiprocessing
from multiprocessing.synchronize import Barrier, Event
from pathlib import Path
from typing import Any

import git
import pytest

from tests.cli.test_after_done_hostile import done_project
from thoughtforge.actions.answering import Answer, take_answer
from thoughtforge.actions.revising import revised
from thoughtforge.actions.run_state import composer_of
from thoughtforge.actions.starting import Started
from thoughtforge.config import Config
from thoughtforge.core.course_claim import Claim, ProjectClaimed, standing_claim, take_claim
from thoughtforge.core.project import Project
from thoughtforge.core.project_view import RunPlace, read_view
from thoughtforge.core.revisions import read_revisions
from thoughtforge.core.run_lock import hold_run_lock
from thoughtforge.core.run_start import claimed_start
from thoughtforge.core.state import read_chat, read_status
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.models import Phase

ROUNDS = 2


def _ask(
    config: Config, project: Project, change: str, gate: Barrier, said: multiprocessing.Queue[str]
) -> None:
    gate.wait(timeout=30)
    try:
        with revised(config, project, change) as (revision, _):
            said.put(f"revision {revision.number}")
    except ThoughtForgeError as exc:
        said.put(f"refused: {exc}")


def test_two_revise_at_once_record_one_revision_and_refuse_the_other_in_words(
    config: Config,
) -> None:
    """Before, `revisions.json` recorded revisions 2 and 3 with both tags on one commit, the
    thread held only the first change, and the loser read "cannot move from 'spec_building'
    to 'spec_building'"."""
    context = multiprocessing.get_context("fork")
    for _ in range(ROUNDS):
        project = done_project(config)
        gate = context.Barrier(2)
        said: multiprocessing.Queue[str] = context.Queue()
        askers = [
            context.Process(target=_ask, args=(config, project, change, gate, said))
            for change in ("The budget is 12k now.", "Add a rain plan.")
        ]
        for asker in askers:
            asker.start()
        outcomes = sorted(said.get(timeout=60) for _ in askers)
        for asker in askers:
            asker.join(timeout=30)
        refusal, won = outcomes
        assert refusal.startswith("refused: ") and won == "revision 2", outcomes
        assert "cannot move from" not in refusal
        assert (
            "a revision started by pid" in refusal  # at once: the claim
            or "a change request is for a done or halted project" in refusal  # just after
        ), refusal
        revisions = read_revisions(project.dir)
        assert [r.number for r in revisions.revisions] == [2]
        assert read_status(project.dir).phase is Phase.SPEC_BUILDING
        assert [t.name for t in git.Repo(project.dir).tags] == ["thoughtforge-revision-2"]
        humans = [m.content for m in read_chat(project.dir) if m.role == "human"]
        assert humans == [revisions.revisions[0].change]


def _cli_revise(
    config: Config, project: Project, gate: Barrier, gap: Event, said: multiprocessing.Queue[str]
) -> None:
    """What `thoughtforge revise` does: the revision, then its own run in this process."""
    gate.wait(timeout=10)
    try:
        with revised(config, project, "Add a rain plan.") as (revision, claim):
            said.put(f"revision {revision.number}")
            gap.set()  # a Start may come now, between the revision and its run
            gate.wait(timeout=10)
            try:
                with claimed_start(project, "start", handed=claim), hold_run_lock(project):
                    said.put("the revision's run")
                    gate.wait(timeout=10)  # the other run tries to arrive while this one works
            except ThoughtForgeError as exc:
                said.put(f"the revision's run refused: {exc}")
                gate.wait(timeout=10)
            return
    except ThoughtForgeError as exc:
        said.put(f"revise refused: {exc}")
    gate.wait(timeout=10)
    gate.wait(timeout=10)


def _page_start(
    project: Project, gate: Barrier, gap: Event, in_gap: bool, said: multiprocessing.Queue[str]
) -> None:
    """The page's Start: a run asked for on the deployment, whose process arrives later."""
    gate.wait(timeout=10)
    if in_gap:
        gap.wait(timeout=10)
    asked = False
    try:
        with claimed_start(project, "start") as claim:
            claim.keep("page-run-id", "page-run")
            asked = True
    except ThoughtForgeError as exc:
        said.put(f"start refused: {exc}")
    gate.wait(timeout=10)
    if asked:
        try:
            with hold_run_lock(project):
                said.put("the page's run")
        except ThoughtForgeError as exc:
            said.put(f"the page's run refused: {exc}")
    gate.wait(timeout=10)


@pytest.mark.parametrize("in_gap", [True, False], ids=["start-in-the-gap", "start-at-once"])
def test_a_start_racing_the_cli_revise_never_leaves_the_revision_without_its_run(
    config: Config, in_gap: bool
) -> None:
    """Before, the CLI's revise let go of the project between the revision and its own run: a
    Start pressed then took it, and the CLI's run was refused "already starting"."""
    context = multiprocessing.get_context("fork")
    for _ in range(ROUNDS):
        project = done_project(config)
        gate, gap = context.Barrier(2), context.Event()
        said: multiprocessing.Queue[str] = context.Queue()
        doors = [
            context.Process(target=_cli_revise, args=(config, project, gate, gap, said)),
            context.Process(target=_page_start, args=(project, gate, gap, in_gap, said)),
        ]
        for door in doors:
            door.start()
        for door in doors:
            door.join(timeout=30)
            assert door.exitcode == 0
        outcomes = []
        while not said.empty():
            outcomes.append(said.get(timeout=5))
        runs = [o for o in outcomes if o.endswith("run")]
        assert len(runs) == 1, outcomes  # one run, never two, never none
        if "revision 2" in outcomes:
            assert runs == ["the revision's run"], outcomes
            assert any("a revision started by pid" in o for o in outcomes if "refused" in o)
        else:
            assert runs == ["the page's run"], outcomes
            assert read_revisions(project.dir).revisions == []
        assert in_gap is False or "revision 2" in outcomes
        assert standing_claim(project) is None


def test_the_pages_and_mcps_revise_hand_their_claim_to_the_run_they_start(
    config: Config, tmp_path: Path
) -> None:
    """Before, `take_answer` let go of the revision's claim before it asked for the run: a Start
    pressed in between took the project, and the revising door was told a run was starting."""
    project = done_project(config)
    asked: list[Claim | None] = []

    def start(
        config: Config,
        config_file: Path,
        project: Project,
        then: dict[str, Any] | None,
        /,
        *,
        handed: Claim | None = None,
    ) -> Started:
        asked.append(handed)
        with pytest.raises(ProjectClaimed, match="a revision started by pid"):
            take_claim(project, "start")  # another door's Start, while the run is asked for
        with claimed_start(project, "start", handed=handed) as claim:
            claim.keep("run-id", "the revision's run")
        return Started(run_id="run-id", note="Started run the revision's run.")

    answer = Answer(action="revise", message="Add a rain plan.")
    outcome = take_answer(config, tmp_path / "config.yaml", project, answer, start=start)

    assert outcome.delivery == "started" and "Revision 2 started" in outcome.note
    assert asked and asked[0] is not None and asked[0].why == "revise"
    standing = standing_claim(project)
    assert standing is not None and standing.flow_run_id == "run-id"
    with pytest.raises(ProjectClaimed, match="already starting"):
        take_claim(project, "start")


@pytest.mark.parametrize("kept", [True, False], ids=["run-on-the-deployment", "run-of-its-own"])
def test_the_view_after_a_revision_is_what_a_fresh_read_says(
    config: Config, tmp_path: Path, kept: bool
) -> None:
    """The door tells what the project takes after a revise from the view it read under the
    revision's claim, with what the revision wrote and the claim handed on, not from a second
    read: it must be the view that read would give (the claim kept for a deployment's run, or
    let go for a process that takes its own)."""
    project = done_project(config)

    def start(
        config: Config,
        config_file: Path,
        project: Project,
        then: dict[str, Any] | None,
        /,
        *,
        handed: Claim | None = None,
    ) -> Started:
        if not kept:
            return Started(run_id="pid-1", note="Started a run in a process of its own.")
        with claimed_start(project, "start", handed=handed) as claim:
            run_claim = claim.keep("run-id", "the revision's run")
        return Started(run_id="run-id", note="Started run the revision's run.", claim=run_claim)

    answer = Answer(action="revise", message="Add a rain plan.")
    outcome = take_answer(config, tmp_path / "config.yaml", project, answer, start=start)

    read = read_view(project)
    assert outcome.view == read
    assert read.status.phase is Phase.SPEC_BUILDING and read.revision == 2
    assert read.run is (RunPlace.STARTING if kept else RunPlace.NONE)
    assert composer_of(outcome.view).note == composer_of(read).note
