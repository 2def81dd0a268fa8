"""`thoughtforge up` → `prefect deployment run` → a run that suspends at each human step and is
resumed by the CLI and by a form submit → done → scheduled re-polish → `thoughtforge down`.

The whole user path of the README against a real server, process worker and deployments.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import git
import httpx
import pytest
import yaml

from tests.conftest import config_data
from tests.polish_setup import polishing_project, review, write_script
from thoughtforge.config import load_config
from thoughtforge.core import current_wait, read_chat, read_status
from thoughtforge.core.processes import live_processes
from thoughtforge.models import Phase
from thoughtforge.phases.polish.loop import PolishLoop
from thoughtforge.server.api import PrefectApi
from thoughtforge.server.local_server import state_dir

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Stack:
    def __init__(self, tmp_path: Path) -> None:
        self.port = _free_port()
        self.config = tmp_path / "config.yaml"
        data = config_data(tmp_path, server={"host": "127.0.0.1", "port": self.port})
        self.config.write_text(yaml.safe_dump(data))
        self.projects = tmp_path / "projects"
        self.api = f"http://127.0.0.1:{self.port}/api"
        self.env = {
            "PATH": f"{BIN}:/usr/bin:/bin",
            "HOME": str(tmp_path),
            "PREFECT_HOME": str(tmp_path / ".prefect"),
            "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
            "COLUMNS": "200",
        }

    def tf(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(BIN / "thoughtforge"), "--config", str(self.config), *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    def prefect(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(BIN / "prefect"), *args],
            env={**self.env, "PREFECT_API_URL": self.api},
            capture_output=True,
            text=True,
            timeout=300,
        )

    def project(self) -> Path:
        [project] = [p for p in self.projects.iterdir() if not p.name.startswith(".")]
        return project


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    stack = Stack(tmp_path)
    started = stack.tf("up")
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        assert f"UI: http://127.0.0.1:{stack.port}" in started.stdout
        yield stack
    finally:
        stack.tf("down")
    assert live_processes(state_dir(stack.config)) == [], "down left a process of ours behind"


def _wait_for(condition: Callable[[], bool], what: str, seconds: float = 180) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.5)


def _suspended_at(stack: Stack, kind: str) -> Callable[[], bool]:
    def check() -> bool:
        if not stack.projects.exists() or not any(
            not p.name.startswith(".") for p in stack.projects.iterdir()
        ):
            return False
        waiting = current_wait(stack.project())
        if waiting is None or waiting.kind != kind:
            return False
        run = PrefectApi(stack.api).waiting_run(stack.project().name)
        return run is not None and run.state_name == "Suspended"

    return check


def _asked_again(stack: Stack, old_key: str) -> Callable[[], bool]:
    """The run took the answer and suspended at a new question of the same kind."""

    def check() -> bool:
        waiting = current_wait(stack.project())
        return (
            waiting is not None and waiting.key != old_key and _suspended_at(stack, waiting.kind)()
        )

    return check


def _processes_of_run(flow_run_id: str) -> list[int]:
    """Live processes working on the flow run (the process worker names it in their env)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            env = (proc / "environ").read_bytes()
        except OSError:
            continue
        if f"PREFECT__FLOW_RUN_ID={flow_run_id}".encode() in env:
            found.append(int(proc.name))
    return found


def _thoughtforge_events(stack: Stack) -> list[str]:
    body = {"filter": {"event": {"prefix": ["thoughtforge.project."]}}, "limit": 50}
    page = httpx.post(f"{stack.api}/events/filter", json=body, timeout=10).json()
    return [event["event"] for event in page["events"]]


def test_a_deployed_run_suspends_at_each_human_step_and_reaches_done(stack: Stack) -> None:
    brain_dump = REPO / "examples" / "wedding-plan.md"
    started = stack.prefect(
        "deployment", "run", "thoughtforge-pipeline/local", "-p", f"brain_dump=@{brain_dump}"
    )
    assert started.returncode == 0, started.stdout + started.stderr
    _wait_for(_suspended_at(stack, "IntakeTurn"), "the Phase 1 wait")
    project = stack.project()
    assert read_chat(project)[0].content == brain_dump.read_text()  # multi-line, intact
    waiting = current_wait(project)
    assert waiting is not None and waiting.flow_run_id is not None
    run_id = waiting.flow_run_id
    _wait_for(lambda: _processes_of_run(run_id) == [], "no process held while the human thinks", 30)

    # A form submitted with its defaults is answered and waits again under a new key.
    api = PrefectApi(stack.api)
    run = api.waiting_run(project.name)
    assert run is not None
    api.resume(run, {"message": "", "action": "send"})
    _wait_for(_asked_again(stack, waiting.key), "the wait after an empty submit")
    notices = [m.content for m in read_chat(project) if "Nothing to send" in m.content]
    assert notices == ["Nothing to send: write a message, or choose **distill**."]

    before_say = current_wait(project)
    assert before_say is not None
    said = stack.tf("say", project.name, "The venue is booked for June the 14th.")
    assert said.returncode == 0 and "Sent 'send' to the waiting run" in said.stdout, said.stderr
    _wait_for(_asked_again(stack, before_say.key), "the wait after say")
    human = [m.content for m in read_chat(project) if m.role == "human"]
    assert human.count("The venue is booked for June the 14th.") == 1

    refused = stack.tf("confirm", project.name)
    assert refused.returncode == 1 and "refused the input" in refused.stderr, refused.stdout

    assert stack.tf("distill", project.name).returncode == 0
    _wait_for(_suspended_at(stack, "ReviewTurn"), "the intent review")
    assert stack.tf("confirm", project.name).returncode == 0
    _wait_for(_suspended_at(stack, "SpecTurn"), "the spec proposal")
    assert stack.tf("confirm", project.name).returncode == 0
    _wait_for(lambda: read_status(project).phase is Phase.DONE, "done")
    subjects = [c.summary for c in git.Repo(project).iter_commits()][::-1]
    assert subjects[:3] == ["Create project", "Lock intent.md", "Lock spec.md and constraints.md"]
    assert subjects.count("Lock intent.md") == 1 and subjects[-1] == "Done"
    phases = ("distilling", "human_review", "spec_building", "building", "polishing", "done")
    wanted = {f"thoughtforge.project.{phase}" for phase in phases}
    _wait_for(lambda: wanted <= set(_thoughtforge_events(stack)), "an event per transition", 30)


def test_re_polish_touches_exactly_the_projects_that_changed(
    stack: Stack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = load_config(stack.config)
    monkeypatch.setenv(
        "THOUGHTFORGE_SCRIPT", str(write_script(tmp_path / "s.yaml", {"default": review()}))
    )
    edited, untouched = polishing_project(config), polishing_project(config)
    for project in (edited, untouched):
        assert PolishLoop(project, config).run().verdict == "done"
    with (edited.docs_dir / "constraints.md").open("a") as handle:
        handle.write("- The rain plan names a second venue\n")
    before = git.Repo(untouched.dir).head.commit

    ran = stack.prefect("deployment", "run", "thoughtforge-repolish/nightly", "--watch")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    subjects = [c.summary for c in git.Repo(edited.dir).iter_commits()][::-1]
    assert subjects[-3:] == [
        "Re-polish: docs/constraints.md changed",
        "review #1: no issues",
        "Done",
    ]
    assert read_status(edited.dir).phase is Phase.DONE
    assert git.Repo(untouched.dir).head.commit == before
    artifact = httpx.post(
        f"{stack.api}/artifacts/filter",
        json={"artifacts": {"key": {"any_": ["thoughtforge-repolish"]}}},
        timeout=10,
    ).json()
    rows = (
        json.loads(artifact[0]["data"])
        if isinstance(artifact[0]["data"], str)
        else artifact[0]["data"]
    )
    outcomes = {row["project"]: row["outcome"] for row in rows}
    assert outcomes[untouched.id] == "not touched"
    assert outcomes[edited.id].startswith("re-polished: done")


def test_down_stops_only_what_up_started(stack: Stack) -> None:
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        recorded = live_processes(state_dir(stack.config))
        assert len(recorded) == 2  # the server and the worker
        stopped = stack.tf("down")
        assert stopped.returncode == 0, stopped.stderr
        assert live_processes(state_dir(stack.config)) == []
        assert bystander.poll() is None
        assert stack.tf("down").returncode == 0  # nothing left to stop is not an error
        assert not (state_dir(stack.config) / ".processes.json").exists()
    finally:
        bystander.kill()
