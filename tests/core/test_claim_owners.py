"""A claim is taken over only when its owner is proven gone, and never stuck without a way out:
pid 1 and the reader's own process (which does not hold it) own nothing; a boot id nobody can
read makes an owner unknown, never gone (before, such a contender took a live owner's claim);
a claim an older ThoughtForge wrote, with no owner, stands and says which file clears it."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

from tests.conftest import REPO_ROOT
from tests.core.test_course_claim import held_elsewhere
from thoughtforge.config import Config
from thoughtforge.core.course_claim import (
    STARTING_FILE,
    Claim,
    ProjectClaimed,
    claimed,
    held_words,
    standing_claim,
    take_claim,
)
from thoughtforge.core.creation import create_project
from thoughtforge.core.process_identity import start_time, this_process
from thoughtforge.core.project_view import read_view
from thoughtforge.core.state import utc_now

CONTENDER_WITHOUT_BOOT_ID = """
import sys
from pathlib import Path
import thoughtforge.core.process_identity as identity
identity.BOOT_ID_FILE = Path("/nonexistent/boot_id")  # as on a system that hides it
from thoughtforge.core.course_claim import ProjectClaimed, take_claim
from thoughtforge.core.project import Project
try:
    take_claim(Project(id=sys.argv[1], dir=Path(sys.argv[2])), "archive")
    print("took it")
except ProjectClaimed as exc:
    print(f"refused: {exc}")
"""


def test_a_claim_naming_pid_1_or_this_process_is_stale(config: Config) -> None:
    """Before: pid 1's claim blocked `archive` advising `kill 1`; one naming the MCP server's
    own pid blocked that server's `archive_project`, advising to kill the server."""
    project = create_project(config, brain_dump="x")
    me = this_process()
    init = me.model_copy(update={"pid": 1, "started": start_time(1)})
    for owner in (init, me):
        planted = Claim(why="rollback", since=utc_now(), owner=owner)
        (project.dir / STARTING_FILE).write_text(planted.model_dump_json())
        assert standing_claim(project) is None
        with claimed(project, "archive"):
            pass


def test_a_claim_this_process_holds_is_never_robbed_by_its_other_threads(config: Config) -> None:
    """The page and MCP serve requests on threads of one process: one's claim stands for
    another."""
    project = create_project(config, brain_dump="x")
    refused: list[Exception] = []
    with claimed(project, "revise"):

        def second_request() -> None:
            try:
                take_claim(project, "archive")
            except ProjectClaimed as exc:
                refused.append(exc)

        thread = threading.Thread(target=second_request)
        thread.start()
        thread.join(30)
    assert refused and "a revision started by pid" in str(refused[0])


def test_a_contender_that_cannot_read_the_boot_id_never_takes_a_live_owners_claim(
    config: Config,
) -> None:
    project = create_project(config, brain_dump="x")
    with held_elsewhere(project, "rollback") as holder:
        contender = subprocess.run(
            [sys.executable, "-c", CONTENDER_WITHOUT_BOOT_ID, project.id, str(project.dir)],
            capture_output=True, text=True, timeout=60, cwd=REPO_ROOT, check=True,
        )  # fmt: skip
        assert contender.stdout.startswith("refused: a rollback started by pid"), contender
        claim = standing_claim(project)
        assert claim is not None and claim.owner.pid == holder.pid


def test_an_owner_that_could_not_read_its_boot_id_is_not_gone_while_it_lives(
    config: Config,
) -> None:
    project = create_project(config, brain_dump="x")
    with held_elsewhere(project, "rollback"):
        claim = standing_claim(project)
        assert claim is not None
        unknown = claim.owner.model_copy(update={"boot_id": "unknown"})
        (project.dir / STARTING_FILE).write_text(
            claim.model_copy(update={"owner": unknown}).model_dump_json()
        )
        with pytest.raises(ProjectClaimed):
            take_claim(project, "archive")


def test_a_claim_of_an_older_version_stands_and_says_which_file_clears_it(config: Config) -> None:
    """Before: it was silently dropped by a claim taker, and `status` said nothing about it."""
    project = create_project(config, brain_dump="x")
    path = project.dir / STARTING_FILE
    path.write_text('{"why": "start", "since": "2026-01-01T00:00:00Z"}')
    with pytest.raises(ProjectClaimed, match=f"older ThoughtForge.*delete {path}"):
        take_claim(project, "archive")
    note = read_view(project).claim_note
    assert note is not None and f"delete {path}" in note and path.exists()
    path.unlink()
    with claimed(project, "archive"):
        pass


def test_a_live_claims_words_name_the_file_that_clears_it(config: Config) -> None:
    project = create_project(config, brain_dump="x")
    with held_elsewhere(project, "rollback") as holder:
        note = read_view(project).claim_note
        assert note is not None and f"kill {holder.pid}" in note
        assert str(project.dir / STARTING_FILE) in note
        claim = standing_claim(project)
        assert claim is not None and "kill 1`" not in held_words(project, claim)
