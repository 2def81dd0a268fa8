"""The project's one claim: real processes racing for it (one wins each round), an owner killed
with -9 taken over at once, a reused pid or a new boot never mistaken for the owner, a live
owner never robbed whatever the clocks say, and the words a refused caller reads."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from multiprocessing.synchronize import Barrier

import pytest

from tests.conftest import REPO_ROOT
from thoughtforge.config import Config
from thoughtforge.core.course_claim import (
    STARTING_FILE,
    Claim,
    ProjectClaimed,
    RunAlreadyStarting,
    claimed,
    release,
    standing_claim,
    take_claim,
)
from thoughtforge.core.creation import create_project
from thoughtforge.core.process_identity import running, this_process
from thoughtforge.core.project import Project
from thoughtforge.core.project_view import read_view
from thoughtforge.core.state import utc_now

ROUNDS = 12
RACERS = 4
HOLDER = """
import sys, time
from pathlib import Path
from thoughtforge.core.course_claim import take_claim
from thoughtforge.core.project import Project
take_claim(Project(id=sys.argv[1], dir=Path(sys.argv[2])), sys.argv[3])
print("held", flush=True)
time.sleep(120)
"""


def _race(project: Project, gate: Barrier, results: multiprocessing.Queue[tuple[int, str]]) -> None:
    """One racer: every round, all try at once; the winner holds until all have tried. Each
    outcome carries its round: a queue fed from several processes keeps no order between them."""
    for round_number in range(ROUNDS):
        gate.wait(timeout=30)
        claim: Claim | None = None
        try:
            claim = take_claim(project, "rollback")
            results.put((round_number, "won"))
        except ProjectClaimed as exc:
            results.put((round_number, f"refused: {exc}"))
        gate.wait(timeout=30)  # every racer has tried
        if claim is not None:
            release(project, claim)
        gate.wait(timeout=30)  # the claim is free for the next round


def test_processes_racing_for_the_claim_one_wins_each_round(config: Config) -> None:
    """Before, nothing made two changes of course one at a time: two `revise` were both taken."""
    project = create_project(config, brain_dump="x")
    context = multiprocessing.get_context("fork")
    gate = context.Barrier(RACERS)
    results: multiprocessing.Queue[tuple[int, str]] = context.Queue()
    racers = [context.Process(target=_race, args=(project, gate, results)) for _ in range(RACERS)]
    for racer in racers:
        racer.start()
    tagged = [results.get(timeout=60) for _ in range(ROUNDS * RACERS)]
    for racer in racers:
        racer.join(timeout=30)
        assert racer.exitcode == 0
    rounds = [[outcome for n, outcome in tagged if n == r] for r in range(ROUNDS)]
    assert all(len(outcome) == RACERS for outcome in rounds), rounds
    assert all(outcome.count("won") == 1 for outcome in rounds), rounds
    outcomes = [outcome for _, outcome in tagged]
    refusals = [outcome for outcome in outcomes if outcome != "won"]
    assert len(refusals) == ROUNDS * (RACERS - 1)
    assert all("a rollback started by pid" in why and "on this machine" in why for why in refusals)
    assert standing_claim(project) is None


@contextmanager
def held_elsewhere(project: Project, why: str) -> Iterator[subprocess.Popen[str]]:
    """The project's claim held by a separate, live process (say, a rollback in progress)."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, project.id, str(project.dir), why],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "held"
        yield process
    finally:
        process.kill()
        process.wait(timeout=30)


def test_a_live_owner_is_never_robbed_and_one_killed_with_9_is_taken_over_at_once(
    config: Config,
) -> None:
    project = create_project(config, brain_dump="x")
    with held_elsewhere(project, "rollback") as process:
        _robbed_only_once_dead(project, process)


def _robbed_only_once_dead(project: Project, process: subprocess.Popen[str]) -> None:
    claim = standing_claim(project)
    assert claim is not None and claim.owner.pid == process.pid
    at = claim.since.astimezone().strftime("%H:%M")
    words = (
        f"a rollback started by pid {process.pid} on this machine at {at} holds project "
        f"{project.id}; try again when it ends"
    )
    with pytest.raises(ProjectClaimed, match=words.replace("(", r"\(").replace(")", r"\)")):
        take_claim(project, "revise")
    # the clocks say nothing: dated two days back (or ahead), a live owner still holds it
    for days in (-2, 2):
        moved = claim.model_copy(update={"since": claim.since + timedelta(days=days)})
        (project.dir / STARTING_FILE).write_text(moved.model_dump_json())
        with pytest.raises(ProjectClaimed):
            take_claim(project, "archive")
    view = read_view(project)
    assert view.course is not None and view.course.why == "rollback" and view.claim is None
    assert view.claim_note is not None and f"clears itself when pid {process.pid} ends" in (
        view.claim_note
    )

    os.kill(process.pid, signal.SIGKILL)  # not reaped: a zombie is no owner either
    deadline = time.monotonic() + 10
    while running(process.pid) and time.monotonic() < deadline:  # the kernel's instant
        time.sleep(0.01)
    with claimed(project, "revise") as mine:
        assert standing_claim(project) == mine
    assert standing_claim(project) is None
    assert "claim_taken_over" in (project.dir / "thoughtforge.log").read_text()


def test_a_reused_pid_or_a_new_boot_is_no_owner(config: Config) -> None:
    project = create_project(config, brain_dump="x")
    me = this_process()
    strangers = {
        "a pid reused by a newer process": me.model_copy(update={"started": me.started + 1}),
        "this machine since rebooted": me.model_copy(update={"boot_id": "an-earlier-boot"}),
        "a pid gone": me.model_copy(update={"pid": 2**22 + 1}),
    }
    for why, owner in strangers.items():
        left = Claim(why="revise", since=utc_now(), owner=owner)
        (project.dir / STARTING_FILE).write_text(left.model_dump_json())
        assert standing_claim(project) is None, why


def test_another_machines_claim_stands_and_says_how_to_clear_it(config: Config) -> None:
    """This machine cannot see a process elsewhere: the claim stands, and the words say whose
    it is and which file to delete if nothing runs there any more."""
    project = create_project(config, brain_dump="x")
    me = this_process()
    owner = me.model_copy(update={"host": "build-box-2", "started": me.started + 1})
    claim = take_claim(project, "archive").model_copy(update={"owner": owner})
    (project.dir / STARTING_FILE).write_text(claim.model_dump_json())
    with pytest.raises(ProjectClaimed, match=r"archiving started by pid \d+ on build-box-2 at"):
        take_claim(project, "start")
    note = read_view(project).claim_note
    assert note is not None and f"delete {project.dir / STARTING_FILE}" in note


def test_a_run_claim_refuses_as_a_run_on_its_way(config: Config) -> None:
    project = create_project(config, brain_dump="x")
    with claimed(project, "start"):
        with pytest.raises(RunAlreadyStarting, match="already starting, asked by pid"):
            take_claim(project, "rollback")
        assert read_view(project).claim is not None and read_view(project).course is None
