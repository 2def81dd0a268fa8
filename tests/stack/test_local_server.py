"""`thoughtforge up` → `prefect deployment run` → a run that suspends at each human step and is
resumed by the CLI and by a form submit → done → scheduled re-polish → `thoughtforge down`.

The whole user path of the README against a real server, process worker and deployments.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import git
import httpx
import pytest
import yaml

from tests.capture_server import CaptureServer
from tests.polish_setup import ECHO_FIX, polishing_project, review, write_script
from tests.stack.conftest import BIN, REPO, Stack, asked_again, running, suspended_at, wait_for
from tests.vibe_kanban import VibeKanban
from thoughtforge.catalogue import RunAnswer
from thoughtforge.config import load_config, state_dir
from thoughtforge.core.processes import live_processes
from thoughtforge.core.project_log import read_events
from thoughtforge.core.run_lock import LOCK_FILE
from thoughtforge.core.state import read_chat, read_status
from thoughtforge.core.waiting import Waiting, current_wait
from thoughtforge.flows.runtime.run_tags import run_name
from thoughtforge.models import Phase
from thoughtforge.phases.polish.loop import PolishLoop
from thoughtforge.stack.api import PrefectApi
from thoughtforge.stack.warm_start_address import listening, socket_name

pytestmark = pytest.mark.slow


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


_HEAVY_IMPORTS = (
    "import sys\nfrom thoughtforge.cli import main\n"
    "sys.argv = ['thoughtforge', *sys.argv[1:]]\n"
    "try:\n    main()\nexcept SystemExit:\n    pass\n"
    "print('imported:', *sorted({m.split('.')[0] for m in sys.modules} & {'prefect', 'httpx'}))\n"
)
"""A `thoughtforge` command that says last which of Prefect and httpx it imported."""


def _thoughtforge_events(stack: Stack) -> list[str]:
    body = {"filter": {"event": {"prefix": ["thoughtforge.project."]}}, "limit": 50}
    page = httpx.post(f"{stack.api}/events/filter", json=body, timeout=10).json()
    return [event["event"] for event in page["events"]]


def test_a_deployed_run_suspends_at_each_human_step_and_reaches_done(
    stack: Stack, vibe_kanban: VibeKanban, channels: CaptureServer
) -> None:
    # Switched on after `up`: the workers' runs read the board and channel settings at each use.
    board = f"deployed {stack.port}"
    data = yaml.safe_load(stack.config.read_text())
    data["vibekanban"] = {"enabled": True, "url": vibe_kanban.url, "project_name": board}
    data["notifications"] = {
        "enabled": True,
        "channels": [{"type": "webhook", "url": f"{channels.url}/hook"}],
    }
    stack.config.write_text(yaml.safe_dump(data))
    brain_dump = REPO / "examples" / "wedding-plan.md"
    started = stack.prefect(
        "deployment", "run", "thoughtforge-pipeline/local", "-p", f"brain_dump=@{brain_dump}"
    )
    assert started.returncode == 0, started.stdout + started.stderr
    wait_for(suspended_at(stack, "IntakeTurn"), "the Phase 1 wait")
    project = stack.project()
    assert read_chat(project)[0].content == brain_dump.read_text()  # multi-line, intact
    waiting = current_wait(project)
    assert waiting is not None and waiting.flow_run_id is not None
    run_id = waiting.flow_run_id
    wait_for(lambda: _processes_of_run(run_id) == [], "no process held while the human thinks", 30)

    shown = stack.tf("status", project.name).stdout.replace("\n", "")
    assert (
        "waiting for more detail, or Distill since" in shown and f"/runs/flow-run/{run_id}" in shown
    ), shown
    second = stack.tf("continue", project.name)
    assert second.returncode == 1 and "is suspended, waiting for you" in second.stderr

    # A form submitted with its defaults is answered and waits again under a new key.
    api = PrefectApi(stack.api)
    run = api.waiting_run(project.name)
    assert run is not None
    api.resume(run, RunAnswer(action="send", message=""))
    wait_for(asked_again(stack, waiting.key), "the wait after an empty submit")
    notices = [m.content for m in read_chat(project) if "Nothing to send" in m.content]
    assert notices == ["Nothing to send: write a message, or choose **distill**."]

    refused = stack.tf("confirm", project.name)
    assert refused.returncode == 1 and "Confirm is not possible now" in refused.stderr, (
        refused.stderr
    )

    said = stack.tf("say", project.name, "The venue is booked for June the 14th.")
    assert said.returncode == 0 and "Sent your message to the waiting run" in said.stdout, (
        said.stderr
    )
    # At once, while the resumed run is still re-entering: the action waits for it to ask.
    distilled = stack.tf("distill", project.name)
    assert distilled.returncode == 0 and "Sent Distill to the waiting run" in distilled.stdout, (
        distilled.stderr
    )
    wait_for(suspended_at(stack, "ReviewTurn"), "the intent review")
    human = [m.content for m in read_chat(project) if m.role == "human"]
    assert human.count("The venue is booked for June the 14th.") == 1
    assert stack.tf("confirm", project.name).returncode == 0
    wait_for(suspended_at(stack, "SpecTurn"), "the spec proposal")
    assert stack.tf("confirm", project.name).returncode == 0
    wait_for(lambda: read_status(project).phase is Phase.DONE, "done")
    # `done` is written first, then committed: the commit may trail the status by a moment
    wait_for(lambda: _subjects(project)[-1] == "Done", "the Done commit", 30)
    subjects = _subjects(project)
    assert subjects[:3] == ["Create project", "Lock intent.md", "Lock spec.md and constraints.md"]
    assert subjects.count("Lock intent.md") == 1
    phases = ("distilling", "human_review", "spec_building", "building", "polishing", "done")
    wanted = {f"thoughtforge.project.{phase}" for phase in phases}
    wait_for(lambda: wanted <= set(_thoughtforge_events(stack)), "an event per transition", 30)
    # Every run process (one per suspension) updated the one card and told the webhook.
    wait_for(
        lambda: [c["status"] for c in vibe_kanban.cards(board)] == ["done"], "the card in Done", 30
    )
    moved = [e["to_phase"] for e in read_events(project) if e["event"] == "phase_transition"]
    wait_for(
        lambda: [r.json()["phase"] for r in channels.requests] == moved,
        "one webhook per transition, in order",
        30,
    )


def _subjects(project: Path) -> list[str]:
    return [str(c.summary) for c in git.Repo(project).iter_commits()][::-1]


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


def test_down_stops_what_up_started_and_its_runs_in_flight_and_nothing_else(
    tmp_path: Path,
) -> None:
    stack = Stack(tmp_path)
    slow = {"steps": {"brain-dump-intake": {"text": "", "sleep": 300}}}
    (tmp_path / "slow.yaml").write_text(yaml.safe_dump(slow))
    stack.env["THOUGHTFORGE_SCRIPT"] = str(tmp_path / "slow.yaml")
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    try:
        started_up = stack.tf("up")
        assert started_up.returncode == 0
        assert f"export PREFECT_API_URL={stack.api}\n" in started_up.stdout
        assert len(live_processes(state_dir(stack.config))) == 4  # server, worker, starter, page
        starter = int((state_dir(stack.config) / "warm-start.pid").read_text())
        assert listening(socket_name(str(state_dir(stack.config).resolve())), starter)  # ready
        warm = subprocess.run(
            [sys.executable, "-c", _HEAVY_IMPORTS, "--config", str(stack.config), "up"],
            env=stack.env, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert "Deployments up to date" in warm.stdout, warm.stdout + warm.stderr
        assert warm.stdout.rstrip().endswith("imported:"), warm.stdout.splitlines()[-1]
        started = stack.prefect(
            "deployment",
            "run",
            "thoughtforge-pipeline/local",
            "-p",
            "brain_dump=" + "A garden shed to plan and build this spring, on a budget. " * 3,
            "-p",
            "auto_confirm=true",
        )
        assert started.returncode == 0, started.stderr
        run_id = started.stdout.split("UUID:")[1].split()[0]
        wait_for(lambda: bool(_processes_of_run(run_id)), "the flow run's process")
        stopped = stack.tf("down")
        assert stopped.returncode == 0, stopped.stderr
        assert "marked cancelled (stopped by `thoughtforge down`)" in stopped.stdout
        assert (
            "Stopped the Prefect server, the worker, the warm starter and the workbench."
            in stopped.stdout
        )
        assert "leftover_processes_ended" not in stopped.stdout + stopped.stderr
        assert list(state_dir(stack.config).glob("*.pid")) == []
        assert live_processes(state_dir(stack.config)) == []
        wait_for(lambda: not _processes_of_run(run_id), "the run in flight to stop", 15)
        assert bystander.poll() is None
        assert stack.tf("down").returncode == 0  # nothing left to stop is not an error
        assert not (state_dir(stack.config) / ".processes.json").exists()
        assert stack.tf("up").returncode == 0
        # Before, the run it stopped still showed RUNNING an hour later.
        assert PrefectApi(stack.api).state_of(run_id) == "CANCELLED"
    finally:
        bystander.kill()
        stack.tf("down")


def _agent_calls(project: Path) -> list[tuple[float, float]]:
    """(start, end) of every agent call, from the project's log."""
    calls = []
    for event in read_events(project):
        if event["event"] == "agent_call":
            start = datetime.fromisoformat(event["started_at"]).timestamp()
            calls.append((start, start + event["seconds"]))
    return calls


def _overlap(first: list[tuple[float, float]], second: list[tuple[float, float]]) -> bool:
    return any(a < d and c < b for a, b in first for c, d in second)


@pytest.mark.parametrize(("runs", "calls"), [(1, 2), (2, 1)])
def test_two_workers_respect_the_run_and_agent_limits(
    tmp_path: Path, runs: int, calls: int
) -> None:
    stack = Stack(tmp_path)
    slow = {"sleep": 1.5}
    steps = {
        "plan-review": {
            "by_iteration": {
                1: {"text": review(1, 0, 0), **slow},
                "default": {"text": review(), **slow},
            }
        },
        "plan-fix": {**ECHO_FIX, **slow},
    }
    (tmp_path / "slow.yaml").write_text(yaml.safe_dump({"steps": steps}))
    stack.env["THOUGHTFORGE_SCRIPT"] = str(tmp_path / "slow.yaml")
    data = yaml.safe_load(stack.config.read_text())
    data["concurrency"] = {"max_parallel_runs": runs, "max_parallel_agent_calls": calls}
    stack.config.write_text(yaml.safe_dump(data))
    second_worker = None
    try:
        assert stack.tf("up").returncode == 0
        # Made after `up`, which halts projects a dead run left in polishing; two at once need
        # room for two active projects, whatever the run limit.
        config = load_config(stack.config)
        roomy = config.concurrency.model_copy(update={"max_parallel_runs": 2})
        projects = [
            polishing_project(config.model_copy(update={"concurrency": roomy})) for _ in range(2)
        ]
        second_worker = subprocess.Popen(
            [str(BIN / "prefect"), "worker", "start", "--pool", "thoughtforge", "--name", "second"],
            env={
                **stack.env,
                "PREFECT_API_URL": stack.api,
                "THOUGHTFORGE_CONFIG": str(stack.config),
            },
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        for project in projects:
            started = stack.prefect(
                "deployment", "run", "thoughtforge-polish/local", "-p", f"project_id={project.id}"
            )
            assert started.returncode == 0, started.stderr
        wait_for(
            lambda: all(read_status(p.dir).phase is Phase.DONE for p in projects), "both polished"
        )
    finally:
        if second_worker is not None:
            os.killpg(second_worker.pid, signal.SIGTERM)
            second_worker.wait(timeout=30)
        stack.tf("down")
    first, second = (_agent_calls(p.dir) for p in projects)
    assert len(first) == len(second) == 3
    if runs == 1:
        windows = [(min(a for a, _ in c), max(b for _, b in c)) for c in (first, second)]
        assert not _overlap([windows[0]], [windows[1]]), "two runs worked at once, limit 1"
    else:
        assert not _overlap(first, second), "two calls to the agent at once, limit 1"


def test_a_polish_halt_suspends_and_a_cli_override_finishes_it(tmp_path: Path) -> None:
    stack = Stack(tmp_path)
    never_clean = write_script(tmp_path / "s.yaml", {"default": review(2, 2, 2, "x")})
    stack.env["THOUGHTFORGE_SCRIPT"] = str(never_clean)
    data = yaml.safe_load(stack.config.read_text())
    data["polish"] = {"max_iterations": 2}
    stack.config.write_text(yaml.safe_dump(data))
    try:
        assert stack.tf("up").returncode == 0
        project = polishing_project(load_config(stack.config))
        started = stack.prefect(
            "deployment", "run", "thoughtforge-pipeline/local", "-p", f"project_id={project.id}"
        )
        assert started.returncode == 0, started.stderr
        wait_for(suspended_at(stack, "PolishHaltDecision"), "the halt decision")
        assert read_status(project.dir).halt_reason is not None
        refused = stack.tf("distill", project.id)  # not an action of this step
        assert refused.returncode == 1 and "Distill is not possible now" in refused.stderr, (
            refused.stderr
        )
        overridden = stack.tf("override", project.id)
        assert overridden.returncode == 0 and "waiting run" in overridden.stdout, overridden.stderr
        wait_for(lambda: read_status(project.dir).phase is Phase.DONE, "done by override")
        wait_for(lambda: current_wait(project.dir) is None, "the wait to be cleared", 30)
        # The phase is written before the override's commit: `down` must not cut in between.
        accepted = "Done (deliverable accepted as it is)"
        wait_for(lambda: git.Repo(project.dir).head.commit.summary == accepted, "the commit", 30)
        run_id = started.stdout.split("UUID:")[1].split()[0]
        run = httpx.get(f"{stack.api}/flow_runs/{run_id}", timeout=10).json()
        assert run["name"] == run_name(project.id, read_status(project.dir))
        body = {"logs": {"flow_run_id": {"any_": [run_id]}}, "limit": 200}
        logs = httpx.post(f"{stack.api}/logs/filter", json=body, timeout=10).json()
        # Before, the wait said so again when the run re-entered after its suspension.
        assert sum("Waiting for you" in log["message"] for log in logs) == 1
    finally:
        stack.tf("down")
    subjects = [c.summary for c in git.Repo(project.dir).iter_commits()][::-1]
    assert subjects.count("polishing halted (guard_max_iterations)") == 1, subjects
    assert subjects[-1] == "Done (deliverable accepted as it is)"


def _held_at_phase_one(stack: Stack) -> Waiting:
    """A new project from a deployment run, its Phase 1 question held (not suspended)."""
    brain_dump = REPO / "examples" / "wedding-plan.md"
    started = stack.prefect(
        "deployment", "run", "thoughtforge-pipeline/local", "-p", f"brain_dump=@{brain_dump}"
    )
    assert started.returncode == 0, started.stderr
    wait_for(suspended_at(stack, "IntakeTurn", "Paused"), "the Phase 1 wait, held")
    asked = current_wait(stack.project())
    assert asked is not None and not asked.away
    return asked


def test_an_answer_within_the_hold_reaches_the_run_that_asked_without_a_re_entry(
    tmp_path: Path,
) -> None:
    stack = Stack(tmp_path, human={"hold_seconds": 120})
    with running(stack):
        asked = _held_at_phase_one(stack)
        project = stack.project()
        holder = (project / LOCK_FILE).read_text()

        distilled = stack.tf("distill", project.name, "--wait")
        assert distilled.returncode == 0 and "Objective" in distilled.stdout, distilled.stderr
        wait_for(suspended_at(stack, "ReviewTurn", "Paused"), "the intent review, held")
        answered = current_wait(project)
        assert answered is not None and answered.flow_run_id == asked.flow_run_id
        assert (project / LOCK_FILE).read_text() == holder  # the same process took the answer
        run = PrefectApi(stack.api).waiting_run(project.name)
        assert run is not None and run.state_name == "Paused"


def test_a_held_run_stopped_by_down_suspends_and_the_next_up_takes_its_answer(
    tmp_path: Path,
) -> None:
    """Before, `down` killed a held run's process and left the run paused for good: the answer
    after the next `up` found no live run to take it."""
    stack = Stack(tmp_path, human={"hold_seconds": 300})
    with running(stack):
        asked = _held_at_phase_one(stack)
    project = stack.project()
    kept = current_wait(project)
    assert kept is not None and kept.away and kept.flow_run_id == asked.flow_run_id
    with running(stack):
        waiting = PrefectApi(stack.api).waiting_run(project.name)
        assert waiting is not None and waiting.id == asked.flow_run_id
        assert waiting.state_name == "Suspended"
        distilled = stack.tf("distill", project.name, "--wait")
        assert distilled.returncode == 0 and "Objective" in distilled.stdout, distilled.stderr
        wait_for(suspended_at(stack, "ReviewTurn", "Paused"), "the intent review, held")
        answered = current_wait(project)
        assert answered is not None and answered.flow_run_id == asked.flow_run_id
