"""Several machines on one box: one server on a throwaway PostgreSQL cluster, the worker `up`
starts, and a second one from `thoughtforge worker` with its own Prefect home and environment,
sharing the projects folder. A "machine" dies by SIGKILL to its worker, its starter and its runs.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

import pytest
import yaml

from tests.capture_server import CaptureServer
from tests.polish_setup import ECHO_FIX, polishing_project, review
from tests.postgresql import PASSWORD, Cluster, create_database, throwaway_cluster
from tests.stack.conftest import REPO, Stack, running, wait_for
from thoughtforge.config import load_config, state_dir
from thoughtforge.core.processes import live_processes
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import read_events
from thoughtforge.core.state import read_status
from thoughtforge.models import HaltReason, Phase
from thoughtforge.process_tree import descendants
from thoughtforge.stack.api import PrefectApi, RunSummary
from thoughtforge.stack.database import PASSWORD_ENV

pytestmark = pytest.mark.slow
SECOND = "second"
PIPELINE = "thoughtforge-pipeline/local"


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with throwaway_cluster() as cluster:
        yield cluster


def _on_postgresql(tmp_path: Path, cluster: Cluster, **settings: object) -> Stack:
    """A stack whose server keeps its runs in a fresh database of the cluster."""
    stack = Stack(tmp_path)
    data = yaml.safe_load(stack.config.read_text())
    data["server"]["database_url"] = cluster.url.replace("/prefect", f"/prefect_{stack.port}")
    data.update(settings)
    stack.config.write_text(yaml.safe_dump(data))
    stack.env[PASSWORD_ENV] = PASSWORD
    create_database(cluster.port, f"prefect_{stack.port}")
    return stack


def _second_machine(stack: Stack, tmp_path: Path) -> dict[str, str]:
    """Machine B's environment: its own Prefect home, no database password (it needs none)."""
    env = {**stack.env, "PREFECT_HOME": str(tmp_path / ".prefect-second")}
    env.pop(PASSWORD_ENV)
    return env


def _worker(stack: Stack, env: dict[str, str], *args: str) -> str:
    result = stack.tf("worker", "--name", SECOND, *args, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def _records(stack: Stack) -> dict[str, Path]:
    state = state_dir(stack.config)
    return {"up": state, SECOND: state / "workers" / SECOND}


def _runners(records: Path) -> list[int]:
    """The worker and starter recorded in `records`, and every process under them."""
    pids = [int((records / f"{name}.pid").read_text()) for name in ("worker", "warm-start")]
    return pids + descendants(pids)


def _logs(stack: Stack) -> str:
    return "".join(path.read_text() for path in state_dir(stack.config).rglob("*.log"))


def _working_windows(project: Path) -> tuple[float, float]:
    """From the project's log: when its run began working on it, and when it last did."""
    times = [datetime.fromisoformat(e["ts"]).timestamp() for e in read_events(project)]
    return min(times), max(times)


def _most_at_once(windows: list[tuple[float, float]]) -> int:
    edges = sorted([(start, 1) for start, _ in windows] + [(end, -1) for _, end in windows])
    most = working = 0
    for _, step in edges:
        working += step
        most = max(most, working)
    return most


@contextmanager
def _paused_worker(records: Path) -> Iterator[None]:
    """The worker recorded in `records` takes no run in the block (stopped, not killed)."""
    pid = int((records / "worker.pid").read_text())
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


def test_up_on_postgresql_runs_a_project_and_the_password_is_nowhere(
    tmp_path: Path, cluster: Cluster
) -> None:
    stack = _on_postgresql(tmp_path, cluster)
    with running(stack):
        doctor = stack.tf("doctor")
        assert f"PostgreSQL thoughtforge@127.0.0.1:{cluster.port}/prefect_" in doctor.stdout
        assert "is reachable" in doctor.stdout
        brain_dump = (REPO / "examples" / "wedding-plan.md").read_text()
        run = PrefectApi(stack.api).run_deployment(
            "thoughtforge-pipeline/local", {"brain_dump": brain_dump, "auto_confirm": True}
        )
        wait_for(lambda: _done(stack) == 1, "done")
        completed = lambda: PrefectApi(stack.api).state_of(run.id) == "COMPLETED"  # noqa: E731
        wait_for(completed, "the run completed", 60)
        said = stack.up_output + doctor.stdout + doctor.stderr + _logs(stack)
    for path in [*stack.projects.rglob("*"), *state_dir(stack.config).rglob("*")]:
        if path.is_file():
            assert PASSWORD.encode() not in path.read_bytes(), path
    assert PASSWORD not in said


def test_two_machines_share_twelve_projects_within_the_run_limit(
    tmp_path: Path, cluster: Cluster
) -> None:
    stack = _on_postgresql(
        tmp_path, cluster, concurrency={"max_parallel_runs": 3, "max_parallel_agent_calls": 12}
    )
    machine_b = _second_machine(stack, tmp_path)
    brain_dump = (REPO / "examples" / "wedding-plan.md").read_text()
    parameters = {"brain_dump": brain_dump, "auto_confirm": True}
    with running(stack):
        try:
            assert "Worker second started" in _worker(stack, machine_b)
            api = PrefectApi(stack.api)
            records = _records(stack)
            # Six runs for each machine: the other one's worker is stopped while they are made.
            for taker, other in (("up", SECOND), (SECOND, "up")):
                with _paused_worker(records[other]):
                    runs = [api.run_deployment(PIPELINE, parameters) for _ in range(6)]
                    taken = _all_taken(api, runs)
                    wait_for(taken, f"{taker}'s worker to take its runs")
            wait_for(lambda: _done(stack) == 12, "twelve projects done", 600)
        finally:
            _worker(stack, machine_b, "--stop")
        for name, folder in records.items():
            log = (folder / "worker.log").read_text()
            assert log.count("submitted to infrastructure") == 6, name
    assert live_processes(records[SECOND]) == []
    projects = [p for p in stack.projects.iterdir() if not p.name.startswith(".")]
    assert _most_at_once([_working_windows(p) for p in projects]) <= 3
    assert "database is locked" not in _logs(stack)


def _all_taken(api: PrefectApi, runs: list[RunSummary]) -> Callable[[], bool]:
    return lambda: all(api.state_of(run.id) != "SCHEDULED" for run in runs)


def _done(stack: Stack) -> int:
    if not stack.projects.exists():
        return 0
    projects = [p for p in stack.projects.iterdir() if not p.name.startswith(".")]
    return sum(1 for p in projects if read_status(p).phase is Phase.DONE)


def test_a_machine_killed_mid_polish_halts_its_project_and_leaves_the_others(
    tmp_path: Path, cluster: Cluster, channels: CaptureServer
) -> None:
    slow = {"sleep": 3}
    steps = {
        "plan-review": {
            "by_iteration": {1: {"text": review(1, 0, 0), **slow}, "default": {"text": review()}}
        },
        "plan-fix": ECHO_FIX,
    }
    (tmp_path / "slow.yaml").write_text(yaml.safe_dump({"steps": steps}))
    stack = _on_postgresql(
        tmp_path,
        cluster,
        notifications={"enabled": True, "channels": [{"type": "webhook", "url": channels.url}]},
    )
    stack.env["THOUGHTFORGE_SCRIPT"] = str(tmp_path / "slow.yaml")
    machine_b = _second_machine(stack, tmp_path)
    with running(stack):
        records = _records(stack)
        _worker(stack, machine_b)
        config = load_config(stack.config)
        doomed, spared = polishing_project(config), polishing_project(config)
        api = PrefectApi(stack.api)
        for project, other in ((doomed, "up"), (spared, SECOND)):
            with _paused_worker(records[other]):
                run = api.run_deployment("thoughtforge-polish/local", {"project_id": project.id})
                wait_for(lambda: api.state_of(run.id) != "SCHEDULED", "the run taken")  # noqa: B023
        wait_for(lambda: _reviewing(doomed), "the doomed project's first review")
        for pid in _runners(records[SECOND]):
            os.kill(pid, signal.SIGKILL)
        wait_for(lambda: read_status(spared.dir).phase is Phase.DONE, "the other machine's project")
        assert read_status(doomed.dir).phase is Phase.POLISHING  # nobody has noticed yet

        restarted = stack.tf("worker", "--name", SECOND, env=machine_b)
        assert f"{doomed.id}: halted (server_restart)" in restarted.stdout, restarted.stderr
        status = read_status(doomed.dir)
        assert (status.phase, status.halt_reason) == (Phase.HALTED, HaltReason.SERVER_RESTART)
        assert read_status(spared.dir).phase is Phase.DONE
        wait_for(lambda: _told(channels, doomed), "the notification", 30)

        resumed = stack.tf("resume", doomed.id)
        assert resumed.returncode == 0, resumed.stdout + resumed.stderr
        wait_for(lambda: read_status(doomed.dir).phase is Phase.DONE, "the resumed polish")
        _worker(stack, machine_b, "--stop")


def _reviewing(project: Project) -> bool:
    return (project.dir / ".scripted-agent").exists()


def _told(channels: CaptureServer, project: Project) -> bool:
    return any(
        r.json().get("project_id") == project.id and r.json().get("phase") == "halted"
        for r in channels.requests
    )
