"""Run slots (the `thoughtforge-runs` global concurrency limit) on a real Prefect server: a dead
run's slot comes back, and a run waiting for one says so and stops when told."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conftest import BRAIN_DUMP
from tests.flows.conftest import run_cli, start_cli
from tests.flows.test_polish_flow import _wait_for
from thoughtforge.config import load_config
from thoughtforge.core.creation import create_project
from thoughtforge.core.state import read_status
from thoughtforge.models import Phase
from thoughtforge.stack.concurrency_limits import RUNS_LIMIT, agent_limit

pytestmark = pytest.mark.slow


@pytest.fixture
def one_run_at_a_time(prefect_api_url: str) -> Iterator[Callable[[], int]]:
    """`thoughtforge-runs` at 1 (and the agents' limits), as `up` makes them; the taken slots
    read from the server. Removed afterwards: the other tests share this server."""
    from prefect import get_client
    from prefect.client.schemas.actions import GlobalConcurrencyLimitCreate

    names = [RUNS_LIMIT, agent_limit("demo"), agent_limit("sleeper")]
    with get_client(sync_client=True) as client:
        for name in names:
            client.create_global_concurrency_limit(
                GlobalConcurrencyLimitCreate(name=name, limit=1 if name == RUNS_LIMIT else 4)
            )

    def taken() -> int:
        with get_client(sync_client=True) as client:
            return client.read_global_concurrency_limit_by_name(RUNS_LIMIT).active_slots

    try:
        yield taken
    finally:
        with get_client(sync_client=True) as client:
            for name in names:
                client.delete_global_concurrency_limit_by_name(name)


def _stop(process: subprocess.Popen[str], sig: signal.Signals) -> None:
    if process.poll() is None:
        os.killpg(process.pid, sig)
    process.wait(timeout=120)


def test_the_slot_of_a_run_killed_with_minus_nine_comes_back_at_recover(
    tmp_path: Path,
    cli_env: dict[str, str],
    cli_config: Callable[..., Path],
    one_run_at_a_time: Callable[[], int],
) -> None:
    """Before, a killed run kept its slot for the lease's 3,600 s (for good after a server
    restart): `resume` waited without a word and `thoughtforge-runs` showed 1/1."""
    taken = one_run_at_a_time
    config = cli_config()
    (tmp_path / "bd.md").write_text(BRAIN_DUMP)
    created = run_cli(
        cli_env, config, "new", "--agent", "sleeper", "--brain-dump", str(tmp_path / "bd.md")
    )
    assert created.returncode == 0, created.stderr
    [project] = (tmp_path / "projects").iterdir()
    # The agent records its pids in its project: the one folder its write boundary leaves it.
    env = {**cli_env, "RECORD_DIR": str(project)}
    killed = start_cli(env, config, "continue", project.name, "--auto-confirm")
    try:
        _wait_for(lambda: (project / "pids").exists(), "the agent call, in the run's slot")
        assert taken() == 1
    finally:
        _stop(killed, signal.SIGKILL)
    recovered = run_cli(cli_env, config, "recover")
    assert recovered.returncode == 0, recovered.stderr
    assert f"{RUNS_LIMIT}: gave back 1 slot held by runs that are gone." in recovered.stdout
    assert taken() == 0
    after = run_cli(
        cli_env, config, "run", "--agent", "demo", "--auto-confirm", str(tmp_path / "bd.md")
    )
    assert after.returncode == 0, after.stdout + after.stderr


def test_a_run_waiting_for_a_slot_says_for_whom_and_stops_on_sigterm(
    tmp_path: Path,
    cli_env: dict[str, str],
    cli_config: Callable[..., Path],
    one_run_at_a_time: Callable[[], int],
) -> None:
    """Before, SIGTERM while waiting for a slot printed "Stopped." and the process went on
    running for 10+ minutes; the wait itself said nothing."""
    config = cli_config()
    (tmp_path / "bd.md").write_text(BRAIN_DUMP)
    with _the_slot_taken():
        waiting = start_cli(
            cli_env, config, "run", "--agent", "demo", "--auto-confirm", str(tmp_path / "bd.md")
        )
        said, reader = _read_on(waiting)
        try:
            _wait_for(lambda: "Waiting for a run slot" in "".join(said), "the run to say it waits")
            shown = " ".join("".join(said).split())
            assert f"{RUNS_LIMIT} has 1 of 1 slot(s) taken; runs alive: none here" in shown
            os.killpg(waiting.pid, signal.SIGTERM)
            assert waiting.wait(timeout=120) == 130
            reader.join(timeout=10)
            assert "Stopped." in "".join(said)
        finally:
            _stop(waiting, signal.SIGKILL)


@contextmanager
def _the_slot_taken() -> Iterator[Callable[[], None]]:
    """The one run slot held here, as a run elsewhere would hold it; yields what gives it back
    (given back at the end if it was not)."""
    from prefect import get_client

    with get_client(sync_client=True) as client:
        lease = client.increment_concurrency_slots_with_lease(
            names=[RUNS_LIMIT], slots=1, mode="concurrency", lease_duration=600
        ).json()["lease_id"]
    given_back: list[bool] = []

    def give_back() -> None:
        if not given_back:
            with get_client(sync_client=True) as client:
                client.release_concurrency_slots_with_lease(lease)
            given_back.append(True)

    try:
        yield give_back
    finally:
        give_back()


def _read_on(process: subprocess.Popen[str]) -> tuple[list[str], threading.Thread]:
    """What `process` prints, gathered as it comes by a thread."""
    said: list[str] = []
    reader = threading.Thread(target=lambda: said.extend(process.stdout or ()), daemon=True)
    reader.start()
    return said, reader


def test_a_burst_of_new_runs_beyond_the_limit_waits_for_slots_instead_of_failing(
    tmp_path: Path,
    cli_env: dict[str, str],
    cli_config: Callable[..., Path],
    one_run_at_a_time: Callable[[], int],
) -> None:
    """Before, 5 `deployment run`s at once with `max_parallel_runs: 2` gave 2 done and 3 Failed
    ("Maximum parallel projects reached"). Here one project already waits for its human (it
    holds no slot), the one slot is taken, and three new runs start at once: each waits, and
    once the slot is given back they take it in turn. (Before, the test only hoped the three
    would overlap: runs quick enough to follow one another waited for nothing.)"""
    config = cli_config(concurrency={"max_parallel_runs": 1})
    waiting_for_human = create_project(load_config(config), brain_dump=BRAIN_DUMP)
    start = (
        "import sys; from thoughtforge.flows.pipeline import pipeline_flow; "
        "print(pipeline_flow(brain_dump=sys.argv[1], agent='demo', auto_confirm=True, "
        "config_path=sys.argv[2]))"
    )
    with _the_slot_taken() as give_back:
        runs = [
            subprocess.Popen(
                [sys.executable, "-c", start, f"{BRAIN_DUMP}\nVariant {n}.", str(config)],
                env={**os.environ, **cli_env},
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                start_new_session=True,
            )
            for n in range(3)
        ]
        read = [_read_on(run) for run in runs]
        try:
            _wait_for(
                lambda: all("Waiting for a run slot" in "".join(said) for said, _ in read),
                "every new run to wait for the slot",
                seconds=240,
            )
            give_back()
            for run, (_, reader) in zip(runs, read, strict=True):
                run.wait(timeout=600)
                reader.join(timeout=10)
        finally:
            for run in runs:
                _stop(run, signal.SIGKILL)
    outputs = ["".join(said) for said, _ in read]
    assert [run.returncode for run in runs] == [0, 0, 0], "\n---\n".join(outputs)
    assert all(output.rstrip().endswith("done") for output in outputs), outputs
    made = [p for p in (tmp_path / "projects").iterdir() if p != waiting_for_human.dir]
    assert sorted(read_status(p).phase for p in made) == [Phase.DONE] * 3
