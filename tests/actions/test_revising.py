"""Two change requests at once, from two processes (two CLIs, the page and MCP): one revision is
recorded and started, the other is refused in words before anything moved."""

from __future__ import annotations

import multiprocessing
from multiprocessing.synchronize import Barrier

import git

from tests.cli.test_after_done_hostile import done_project
from thoughtforge.actions.revising import revise
from thoughtforge.config import Config
from thoughtforge.core import Project, read_chat, read_status
from thoughtforge.core.revisions import read_revisions
from thoughtforge.errors import ThoughtForgeError
from thoughtforge.models import Phase

ROUNDS = 2


def _ask(
    config: Config, project: Project, change: str, gate: Barrier, said: multiprocessing.Queue[str]
) -> None:
    gate.wait(timeout=30)
    try:
        said.put(f"revision {revise(config, project, change).number}")
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
