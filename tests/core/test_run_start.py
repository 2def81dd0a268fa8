"""A run on its way: claimed once, refused twice, gone when the run takes its lock."""

from __future__ import annotations

import os
import threading
from datetime import timedelta

import pytest

from thoughtforge.config import Config
from thoughtforge.core import create_project, hold_run_lock
from thoughtforge.core.run_start import (
    STARTING_FILE,
    RunAlreadyStarting,
    claim_start,
    claimed_start,
    record_run,
    refuse_beside_another,
    starting,
)
from thoughtforge.errors import ProjectFileError


def test_two_requests_at_once_make_one_claim(config: Config) -> None:
    """Before, two Start presses made two flow runs; the second failed on the lock."""
    project = create_project(config, brain_dump="x")
    won: list[str] = []
    refused: list[str] = []
    gate = threading.Barrier(8)

    def press() -> None:
        gate.wait()
        try:
            claim_start(project, "start")
            won.append("yes")
        except RunAlreadyStarting as exc:
            refused.append(str(exc))

    threads = [threading.Thread(target=press) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(won) == 1 and len(refused) == 7
    assert all("already starting" in why for why in refused)


def test_the_run_taking_its_lock_ends_the_claim(config: Config) -> None:
    project = create_project(config, brain_dump="x")
    claim_start(project, "start")
    record_run(project, "run-1", "healthy-gecko")
    claim = starting(project)
    assert claim is not None and claim.run_name == "healthy-gecko"
    with pytest.raises(RunAlreadyStarting, match=r"already starting \(healthy-gecko\)"):
        claim_start(project, "start")
    with hold_run_lock(project):
        assert starting(project) is None
        with pytest.raises(RunAlreadyStarting, match="already being run"):
            claim_start(project, "start")
    claim_start(project, "start")  # nothing holds it now


def test_another_run_arriving_while_one_is_claimed_is_refused(config: Config) -> None:
    """A run `prefect deployment run` made beside the page's: refused before it takes anything."""
    project = create_project(config, brain_dump="x")
    claim_start(project, "start")
    record_run(project, "run-1", "healthy-gecko")
    refuse_beside_another(project, "run-1")  # the claimed run itself goes on
    with pytest.raises(RunAlreadyStarting):
        refuse_beside_another(project, "run-2")


def test_a_claim_never_taken_up_is_forgotten(config: Config) -> None:
    project = create_project(config, brain_dump="x")
    claim = claim_start(project, "start")
    old = claim.model_copy(update={"since": claim.since - timedelta(hours=1)})
    (project.dir / STARTING_FILE).write_text(old.model_dump_json())
    assert starting(project) is None
    claim_start(project, "wake")
    (project.dir / STARTING_FILE).write_text("{not json")
    assert starting(project) is None and not (project.dir / STARTING_FILE).exists()


def test_a_claim_that_cannot_be_written_is_one_clear_line_not_a_traceback(config: Config) -> None:
    """Before, `continue` on a read-only projects folder ended in a raw OSError traceback. The
    claim's draft name is taken by a folder here: the write fails as a full or read-only disk's
    would (root ignores permission bits)."""
    project = create_project(config, brain_dump="x")
    draft = project.dir / f"{STARTING_FILE}.{os.getpid()}.{threading.get_ident()}"
    draft.mkdir()
    with pytest.raises(ProjectFileError, match=r"\.starting\.json: cannot be written"):
        claim_start(project, "start")
    assert starting(project) is None


def test_a_claim_held_for_a_block_goes_at_its_end_unless_kept(config: Config) -> None:
    project = create_project(config, brain_dump="x")
    with claimed_start(project, "start"):
        assert starting(project) is not None
    assert starting(project) is None  # nothing asked for: no claim left behind
    with claimed_start(project, "start") as held:
        held.keep("run-1", "healthy-gecko")
    kept = starting(project)
    assert kept is not None and (kept.flow_run_id, kept.run_name) == ("run-1", "healthy-gecko")


def test_a_claim_goes_when_its_block_fails_and_refuses_a_second(config: Config) -> None:
    project = create_project(config, brain_dump="x")
    with pytest.raises(RuntimeError), claimed_start(project, "start"):
        with pytest.raises(RunAlreadyStarting):  # a second request meanwhile is refused
            claim_start(project, "start")
        raise RuntimeError("the server failed")
    assert starting(project) is None


def test_a_block_never_clears_a_claim_made_after_its_own(config: Config) -> None:
    """The run took the lock (ending this claim) and another request claimed since."""
    project = create_project(config, brain_dump="x")
    with claimed_start(project, "start"):
        (project.dir / STARTING_FILE).unlink()
        other = claim_start(project, "wake")
    assert starting(project) == other
