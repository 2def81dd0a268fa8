"""A run on its way: claimed once, refused twice, gone when the run takes its lock."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest

from thoughtforge.config import Config
from thoughtforge.core.course_claim import (
    KEPT_SECONDS,
    STARTING_FILE,
    RunAlreadyStarting,
    keep,
    standing_claim,
)
from thoughtforge.core.creation import create_project
from thoughtforge.core.run_lock import hold_run_lock
from thoughtforge.core.run_start import claim_start, claimed_start, refuse_beside_another
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
    keep(project, claim_start(project, "start"), "run-1", "healthy-gecko")
    claim = standing_claim(project)
    assert claim is not None and claim.run_name == "healthy-gecko"
    with pytest.raises(RunAlreadyStarting, match=r"already starting \(healthy-gecko\)"):
        claim_start(project, "start")
    with hold_run_lock(project):
        assert standing_claim(project) is None
        with pytest.raises(RunAlreadyStarting, match="already being run"):
            claim_start(project, "start")
    claim_start(project, "start")  # nothing holds it now


def test_another_run_arriving_while_one_is_claimed_is_refused(config: Config) -> None:
    """A run `prefect deployment run` made beside the page's: refused before it takes anything."""
    project = create_project(config, brain_dump="x")
    keep(project, claim_start(project, "start"), "run-1", "healthy-gecko")
    refuse_beside_another(project, "run-1")  # the claimed run itself goes on
    with pytest.raises(RunAlreadyStarting):
        refuse_beside_another(project, "run-2")


def test_a_kept_claim_never_taken_up_is_forgotten_by_the_boot_clock_not_the_wall_clock(
    config: Config,
) -> None:
    """Before, a claim dated ahead (a clock set back) refused every command forever."""
    project = create_project(config, brain_dump="x")
    keep(project, claim_start(project, "start"), "run-1", "healthy-gecko")
    kept = standing_claim(project)
    assert kept is not None and kept.kept_at is not None
    ahead = kept.model_copy(update={"since": kept.since + timedelta(days=2)})
    (project.dir / STARTING_FILE).write_text(ahead.model_dump_json())
    assert standing_claim(project) == ahead  # the date says nothing: it was kept just now
    old = ahead.model_copy(update={"kept_at": kept.kept_at - KEPT_SECONDS - 1})
    (project.dir / STARTING_FILE).write_text(old.model_dump_json())
    assert standing_claim(project) is None
    claim_start(project, "wake")


def test_a_claim_that_cannot_be_written_is_one_clear_line_not_a_traceback(config: Config) -> None:
    """Before, `continue` on a read-only projects folder ended in a raw OSError traceback. A
    folder stands in the claim's place here: the write fails as a full or read-only disk's would
    (root ignores permission bits)."""
    project = create_project(config, brain_dump="x")
    (project.dir / STARTING_FILE).mkdir()
    with pytest.raises(ProjectFileError, match=r"\.starting\.json: cannot be written"):
        claim_start(project, "start")
    assert standing_claim(project) is None


def test_a_claim_held_for_a_block_goes_at_its_end_unless_kept(config: Config) -> None:
    project = create_project(config, brain_dump="x")
    with claimed_start(project, "start"):
        assert standing_claim(project) is not None
    assert standing_claim(project) is None  # nothing asked for: no claim left behind
    with claimed_start(project, "start") as held:
        held.keep("run-1", "healthy-gecko")
    kept = standing_claim(project)
    assert kept is not None and (kept.flow_run_id, kept.run_name) == ("run-1", "healthy-gecko")


def test_a_claim_goes_when_its_block_fails_and_refuses_a_second(config: Config) -> None:
    project = create_project(config, brain_dump="x")
    with pytest.raises(RuntimeError), claimed_start(project, "start"):
        with pytest.raises(RunAlreadyStarting):  # a second request meanwhile is refused
            claim_start(project, "start")
        raise RuntimeError("the server failed")
    assert standing_claim(project) is None


def test_a_block_never_clears_a_claim_made_after_its_own(config: Config) -> None:
    """The run took the lock (ending this claim) and another request claimed since."""
    project = create_project(config, brain_dump="x")
    with claimed_start(project, "start"):
        (project.dir / STARTING_FILE).unlink()
        other = claim_start(project, "wake")
    assert standing_claim(project) == other
