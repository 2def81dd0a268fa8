"""The whole product through its CLI, against a real Prefect server."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import git
import pytest
import yaml
from prefect import get_client
from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterTags
from prefect.client.schemas.objects import FlowRun

from tests.flows.conftest import run_cli, send_input, start_cli, waiting_run
from tests.flows.test_polish_flow import _wait_for
from tests.polish_setup import polishing_project
from tests.process_checks import alive
from thoughtforge.config import load_config
from thoughtforge.core.creation import create_project
from thoughtforge.core.run_lock import hold_run_lock
from thoughtforge.core.run_start import claim_start
from thoughtforge.core.state import ChatMessage, append_chat, read_chat, read_status
from thoughtforge.core.waiting import WAITING_FILE, current_wait
from thoughtforge.models import HaltReason, Phase
from thoughtforge.stack.api import project_tag

T = TypeVar("T")
REPO = Path(__file__).resolve().parents[2]
BRAIN_DUMP = (REPO / "examples" / "wedding-plan.md").read_text()
PLAN_SCRIPT = REPO / "tests" / "agents" / "plan_script.yaml"
DEMO_STEPS: dict[str, Any] = yaml.safe_load(PLAN_SCRIPT.read_text())["steps"]

QUESTION = "Which month works best for the guests flying in?"
DISTILLATION = DEMO_STEPS["brain-dump-intake"]["text"].replace(
    "## Open Questions\nNone", f"## Open Questions\n- {QUESTION}"
)
PROPOSAL = DEMO_STEPS["spec-building"]["text"]
UNRESOLVED = PROPOSAL.replace(
    "## Resolved Unknowns\nNone",
    f"## Resolved Unknowns\n- {QUESTION} UNRESOLVED: June or September?",
)
RESOLVED = PROPOSAL.replace(
    "## Resolved Unknowns\nNone", f"## Resolved Unknowns\n- {QUESTION} June, the person decided."
)


def _script(path: Path, **steps: Any) -> Path:
    path.write_text(yaml.safe_dump({"steps": {**DEMO_STEPS, **steps}}))
    return path


def _projects(tmp_path: Path) -> list[Path]:
    """Finished projects: one being created is built in a hidden `.creating-…` folder."""
    root = tmp_path / "projects"
    return [p for p in root.iterdir() if not p.name.startswith(".")] if root.exists() else []


def _only_project(tmp_path: Path) -> Path:
    [project] = _projects(tmp_path)
    return project


def _flow_runs_of(project_id: str) -> list[FlowRun]:
    with get_client(sync_client=True) as client:
        return client.read_flow_runs(
            flow_run_filter=FlowRunFilter(tags=FlowRunFilterTags(all_=[project_tag(project_id)]))
        )


def test_readme_main_command_takes_a_fresh_project_to_done(
    tmp_path: Path, cli_env: dict[str, str], cli_config: Callable[..., Path], prefect_api_url: str
) -> None:
    config = cli_config()
    result = run_cli(
        cli_env, config, "run", str(REPO / "examples" / "wedding-plan.md"), "--auto-confirm"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "scripted demo agent" in result.stderr
    assert "Loading Prefect and the flows…\n  ready (" in result.stderr  # no silent wait
    project = _only_project(tmp_path)
    assert read_status(project).phase is Phase.DONE
    for name in ("intent.md", "spec.md", "constraints.md", "plan.md"):
        assert (project / "docs" / name).stat().st_size > 0, name
    assert (project / "polish_log.md").exists()
    subjects = [str(c.summary) for c in git.Repo(project).iter_commits()][::-1]
    assert subjects[:3] == ["Create project", "Lock intent.md", "Lock spec.md and constraints.md"]
    assert any(s.startswith("Phase 3 complete") for s in subjects)
    assert subjects[-2:] == ["review #1: no issues", "Done"]
    assert f"Deliverable: {project / 'docs' / 'plan.md'}" in result.stdout.replace("\n", "")
    name = read_status(project).project_name
    assert name is not None and name.startswith("We're getting married next June")
    assert "budget is 15k all in" in (project / "docs" / "plan.md").read_text()
    trace = (project / "docs" / "traceability.md").read_text()  # every criterion quoted, checked
    assert "No evidence." not in trace and "Refused" not in trace, trace
    assert trace.count("Status: holds") == trace.count("\n## ") >= 3, trace
    [run] = _flow_runs_of(project.name)
    assert run.name == f"{name} · done"  # not Prefect's random name
    again = run_cli(cli_env, config, "confirm", project.name)
    assert again.returncode == 1
    said = again.stderr.replace("\n", " ")
    assert "Done: the deliverable is final" in said and "continue" not in said
    assert f"Next: thoughtforge revise {project.name}" in said


@pytest.mark.slow
def test_cli_turns_drive_phases_one_and_two_of_a_paused_run(
    tmp_path: Path,
    cli_env: dict[str, str],
    cli_config: Callable[..., Path],
    prefect_api_url: str,
) -> None:
    config = cli_config()
    script = _script(
        tmp_path / "s.yaml",
        **{
            "brain-dump-intake": [
                {"text": DISTILLATION},
                {"text": DISTILLATION.replace("this month", "by June")},
            ],
            "spec-building": [{"text": UNRESOLVED}, {"text": RESOLVED}],
        },
    )
    (tmp_path / "bd.md").write_text(BRAIN_DUMP)
    env = {**cli_env, "THOUGHTFORGE_SCRIPT": str(script)}
    worker = start_cli(env, config, "run", str(tmp_path / "bd.md"))
    try:
        _wait_for(
            lambda: bool(_projects(tmp_path)),
            "project",
        )
        project = _only_project(tmp_path)
        project_id = project.name

        def paused_in(phase: Phase, chat_len: int | None = None) -> Callable[[], bool]:
            def check() -> bool:
                status = read_status(project)
                enough = chat_len is None or len(read_chat(project)) >= chat_len
                return (
                    status.phase is phase
                    and enough
                    and waiting_run(prefect_api_url, project_id) is not None
                )

            return check

        _wait_for(paused_in(Phase.BRAIN_DUMP), "the brain dump wait")
        distilled = run_cli(env, config, "distill", project_id, "--wait")
        assert distilled.returncode == 0, distilled.stderr
        assert QUESTION in distilled.stdout  # --wait printed the AI's reply when it came
        _wait_for(paused_in(Phase.HUMAN_REVIEW), "the distillation")
        corrected = run_cli(
            env,
            config,
            "say",
            project_id,
            "The wedding is in June, guests need a full month notice.",
            "--wait",
        )
        assert corrected.returncode == 0, corrected.stderr
        assert "by June" in corrected.stdout
        _wait_for(paused_in(Phase.HUMAN_REVIEW, chat_len=4), "the revised distillation")
        assert "by June" in read_chat(project)[-1].content
        assert run_cli(env, config, "confirm", project_id).returncode == 0
        _wait_for(paused_in(Phase.SPEC_BUILDING, chat_len=1), "the spec proposal")
        assert (project / "docs" / "intent.md").exists()

        refused = run_cli(env, config, "confirm", project_id)
        assert refused.returncode == 0, refused.stderr
        _wait_for(paused_in(Phase.SPEC_BUILDING, chat_len=2), "the refusal")
        assert QUESTION in read_chat(project)[-1].content
        assert not (project / "docs" / "spec.md").exists()

        assert run_cli(env, config, "say", project_id, "June. Decided.").returncode == 0
        _wait_for(paused_in(Phase.SPEC_BUILDING, chat_len=4), "the revised proposal")
        assert run_cli(env, config, "confirm", project_id).returncode == 0
        assert worker.wait(timeout=300) == 0, worker.stdout.read() if worker.stdout else ""
    finally:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGKILL)
    assert read_status(project).phase is Phase.DONE
    assert "June" in (project / "docs" / "spec.md").read_text()


@pytest.mark.slow
def test_killed_mid_build_then_recover_halts_and_resume_finishes(
    tmp_path: Path, cli_env: dict[str, str], cli_config: Callable[..., Path]
) -> None:
    config = cli_config()
    build = DEMO_STEPS["plan-build"]
    slow = _script(tmp_path / "slow.yaml", **{"plan-build": {**build, "sleep": 120}})
    (tmp_path / "bd.md").write_text(BRAIN_DUMP)
    worker = start_cli(
        {**cli_env, "THOUGHTFORGE_SCRIPT": str(slow)},
        config,
        "run",
        str(tmp_path / "bd.md"),
        "--auto-confirm",
    )
    try:
        _wait_for(
            lambda: any(
                any((p / ".scripted-agent" / "prompts").glob("*plan-build.md"))
                for p in (tmp_path / "projects").glob("*")
            ),
            "the build to start",
        )
    finally:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()
    project = _only_project(tmp_path)
    assert read_status(project).phase is Phase.BUILDING

    recovered = run_cli(cli_env, config, "recover")
    assert recovered.returncode == 0 and project.name in recovered.stdout
    status = read_status(project)
    assert (status.phase, status.halt_reason, status.halted_from) == (
        Phase.HALTED,
        HaltReason.SERVER_RESTART,
        Phase.BUILDING,
    )

    fast = _script(tmp_path / "fast.yaml")
    resumed = run_cli(cli_env, config, "resume", project.name, THOUGHTFORGE_SCRIPT=str(fast))
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert read_status(project).phase is Phase.DONE


def test_a_bad_input_to_a_paused_run_is_refused_and_it_stays_paused(
    tmp_path: Path,
    cli_env: dict[str, str],
    cli_config: Callable[..., Path],
    prefect_api_url: str,
) -> None:
    from thoughtforge.errors import ThoughtForgeError

    config = cli_config()
    (tmp_path / "bd.md").write_text(BRAIN_DUMP)
    worker = start_cli(cli_env, config, "run", str(tmp_path / "bd.md"))
    try:
        _wait_for(
            lambda: bool(_projects(tmp_path)),
            "project",
        )
        project_id = _only_project(tmp_path).name
        _wait_for(lambda: waiting_run(prefect_api_url, project_id) is not None, "the first wait")
        try:
            send_input(prefect_api_url, project_id, {"message": "x", "action": "dance"})
        except ThoughtForgeError as exc:
            assert "refused the input" in str(exc)
        else:
            raise AssertionError("a bad action was accepted")
        assert waiting_run(prefect_api_url, project_id) is not None
    finally:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()


@pytest.mark.slow
def test_a_phase_one_agent_failure_in_a_batch_run_halts_with_the_agents_words(
    tmp_path: Path, cli_env: dict[str, str], cli_config: Callable[..., Path]
) -> None:
    """Before, `run --auto-confirm` died with `UnboundLocalError: reply` in the intake flow; the
    halt logged `Finished in state Failed`, and the hints named override after a Phase 1 halt,
    resume after terminate; `say` at a halt ended on Prefect's validation error."""
    config = cli_config()
    failing = {"text": "", "exit": 3, "stderr": "model overloaded, try later"}
    script = _script(tmp_path / "s.yaml", **{"brain-dump-intake": failing})
    (tmp_path / "bd.md").write_text(BRAIN_DUMP)
    env = {**cli_env, "THOUGHTFORGE_SCRIPT": str(script)}
    result = run_cli(env, config, "run", str(tmp_path / "bd.md"), "--auto-confirm")
    assert result.returncode == 3, result.stdout + result.stderr
    assert "UnboundLocalError" not in result.stdout + result.stderr
    project = _only_project(tmp_path)
    status = read_status(project)
    assert (status.phase, status.halt_reason) == (Phase.HALTED, HaltReason.AGENT_FAILURE)
    assert "model overloaded, try later" in read_chat(project)[-1].content

    assert f"Next: thoughtforge resume|terminate {project.name}" in result.stderr.replace("\n", " ")
    assert "Failed" not in result.stdout + result.stderr
    [run] = _flow_runs_of(project.name)
    assert run.name == project.name  # not named yet: the halt came before the intent
    assert run.state is not None and run.state.is_completed() and run.state.name == "Halted"
    assert run.state.message == "agent_failure in distilling"

    said = run_cli(env, config, "say", project.name, "Use the cheaper venue.")
    assert said.returncode == 1
    told = said.stderr.replace("\n", " ")
    assert "Send is not possible now. Halted" in told  # the page's words, stored nowhere
    assert f"Next: thoughtforge resume|terminate {project.name}" in told
    assert "Additional properties" not in told
    assert "Use the cheaper venue." not in [m.content for m in read_chat(project)]

    assert run_cli(env, config, "terminate", project.name).returncode == 0
    again = run_cli(env, config, "continue", project.name)
    assert again.returncode == 3
    assert "nothing to resume" in again.stderr and "Next:" not in again.stderr


@pytest.mark.slow
def test_resume_after_a_phase_one_halt_still_waits_for_the_human(
    tmp_path: Path,
    cli_env: dict[str, str],
    cli_config: Callable[..., Path],
    prefect_api_url: str,
) -> None:
    """Before, resume ran the pipeline with auto-confirm: every later human gate was skipped."""
    env, config, project = _halted_in_phase_one(tmp_path, cli_env, cli_config)
    worker = start_cli(env, config, "resume", project.name)
    try:
        _wait_for(
            lambda: (
                read_status(project).phase is Phase.HUMAN_REVIEW
                and waiting_run(prefect_api_url, project.name) is not None
            ),
            "the distillation to wait for review",
        )
        assert worker.poll() is None, "resume must wait at the review, not confirm by itself"
        assert not (project / "docs" / "intent.md").exists()
    finally:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()


@pytest.mark.slow
def test_resume_with_auto_confirm_goes_on_through_the_human_steps_whatever_the_halted_phase(
    tmp_path: Path,
    cli_env: dict[str, str],
    cli_config: Callable[..., Path],
    prefect_api_url: str,
) -> None:
    """Before, a project halted in Phase 1 or 2 (`file_system_error` in human_review, after a full
    disk) was resumed to its human step and left there: "It waits for you", whatever
    `--auto-confirm` said."""
    env, config, project = _halted_in_phase_one(tmp_path, cli_env, cli_config)
    status = read_status(project)
    halted = status.model_copy(
        update={"halt_reason": HaltReason.FILE_SYSTEM_ERROR, "halted_from": Phase.HUMAN_REVIEW}
    )
    (project / "status.json").write_text(halted.model_dump_json(indent=2))
    append_chat(project, ChatMessage(role="ai", content=DISTILLATION, phase=Phase.DISTILLING))
    result = run_cli(env, config, "resume", project.name, "--auto-confirm")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "It waits for you" not in result.stdout
    assert read_status(project).phase is Phase.DONE


def test_a_corrupt_chat_halts_the_run_before_any_work(
    tmp_path: Path, cli_env: dict[str, str], cli_config: Callable[..., Path]
) -> None:
    """Before, a corrupt chat_history.json was found only at the end of polish."""
    config = cli_config()
    project = polishing_project(load_config(config))
    (project.dir / "chat_history.json").write_text('[{"role": "human"')
    result = run_cli(cli_env, config, "continue", project.id)
    assert result.returncode == 3, result.stdout + result.stderr
    assert "chat_history.json" in (result.stdout + result.stderr).replace("\n", "")
    status = read_status(project.dir)
    assert (status.phase, status.halt_reason) == (Phase.HALTED, HaltReason.FILE_SYSTEM_ERROR)
    assert not (project.dir / "polish_state.json").exists(), "no iteration ran"
    assert not (project.dir / ".scripted-agent").exists(), "no agent was asked"
    assert (project.dir / "chat_history.json").read_text() == '[{"role": "human"'


def test_a_failing_run_prints_one_line_and_no_prefect_traceback(
    tmp_path: Path, cli_env: dict[str, str], cli_config: Callable[..., Path]
) -> None:
    """Before, Prefect's traceback came first; `--debug` still shows it."""
    config = cli_config()
    project = polishing_project(load_config(config))
    (project.dir / "status.json").write_text("{")
    quiet = run_cli(cli_env, config, "continue", project.id)
    loud = run_cli(cli_env, config, "--debug", "continue", project.id)
    assert quiet.returncode == 1
    assert "status.json" in quiet.stderr and "Traceback" not in quiet.stdout + quiet.stderr
    assert "Traceback" in loud.stdout + loud.stderr


def test_a_second_run_is_refused_before_any_run_is_made(
    tmp_path: Path, cli_env: dict[str, str], cli_config: Callable[..., Path]
) -> None:
    """Before, the second run was made on the server and failed on the project's lock."""
    config = cli_config()
    project = polishing_project(load_config(config))
    with hold_run_lock(project):
        refused = run_cli(cli_env, config, "continue", project.id)
    assert refused.returncode == 1
    assert "is already being run" in refused.stderr, refused.stderr
    assert "Traceback" not in refused.stdout + refused.stderr
    assert "Flow run" not in refused.stdout + refused.stderr  # no run was made
    claim_start(project, "start")
    refused = run_cli(cli_env, config, "continue", project.id)
    assert refused.returncode == 1 and "already starting" in refused.stderr, refused.stderr


def test_eight_concurrent_says_keep_every_message(
    tmp_path: Path, cli_env: dict[str, str], cli_config: Callable[..., Path]
) -> None:
    """Before, 4 of 8 concurrent `say` were kept (unlocked read-modify-write of the chat)."""
    config = cli_config()
    project = create_project(load_config(config), brain_dump=BRAIN_DUMP)
    sayers = [start_cli(cli_env, config, "say", project.id, f"message {n}") for n in range(8)]
    for sayer in sayers:
        assert sayer.wait(timeout=300) == 0, sayer.stdout.read() if sayer.stdout else ""
    said = {m.content for m in read_chat(project.dir) if m.role == "human"}
    assert {f"message {n}" for n in range(8)} <= said


def test_say_with_the_prefect_api_down_keeps_the_message_and_says_so(
    tmp_path: Path, cli_env: dict[str, str], cli_config: Callable[..., Path]
) -> None:
    config = cli_config()
    project = create_project(load_config(config), brain_dump=BRAIN_DUMP)
    down = {**cli_env, "PREFECT_API_URL": "http://127.0.0.1:9/api"}
    result = run_cli(down, config, "say", project.id, "The venue is booked.")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "saved in the project's chat" in result.stderr.replace("\n", " ")
    assert read_chat(project.dir)[-1].content == "The venue is booked."


def test_a_reply_to_a_paused_run_whose_process_died_is_not_sent_into_the_void(
    tmp_path: Path,
    cli_env: dict[str, str],
    cli_config: Callable[..., Path],
    prefect_api_url: str,
) -> None:
    """Before, `distill` answered "Sent" to a paused run killed with -9: nobody ever read it."""
    config = cli_config()
    (tmp_path / "bd.md").write_text(BRAIN_DUMP)
    worker = start_cli(cli_env, config, "run", str(tmp_path / "bd.md"))
    try:
        _wait_for(lambda: bool(_projects(tmp_path)), "project")
        project_id = _only_project(tmp_path).name
        _wait_for(lambda: waiting_run(prefect_api_url, project_id) is not None, "the first wait")
    finally:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()
    assert waiting_run(prefect_api_url, project_id) is not None  # still "Paused" in Prefect
    refused = run_cli(cli_env, config, "distill", project_id)
    assert refused.returncode == 1 and "no run of" in refused.stderr, refused.stdout
    queued = run_cli(cli_env, config, "say", project_id, "More detail.")
    assert queued.returncode == 0 and "queued" in queued.stdout, queued.stderr
    assert read_chat(_only_project(tmp_path))[-1].content == "More detail."


@pytest.mark.slow
def test_a_new_run_never_reuses_the_wait_of_a_stopped_one(
    tmp_path: Path,
    cli_env: dict[str, str],
    cli_config: Callable[..., Path],
    prefect_api_url: str,
) -> None:
    """Before, `continue` after a stopped wait reused `.waiting.json` (same kind and phase) without
    looking at its run: it printed the old run's page on a dead temporary server, replies
    answered "no run is waiting", and `status` showed the dead address."""
    config = cli_config()
    (tmp_path / "bd.md").write_text(BRAIN_DUMP)
    first = start_cli(cli_env, config, "run", str(tmp_path / "bd.md"))
    try:
        _wait_for(lambda: bool(_projects(tmp_path)), "project")
        project = _only_project(tmp_path)
        _wait_for(lambda: waiting_run(prefect_api_url, project.name) is not None, "the first wait")
        stale = (project / WAITING_FILE).read_text()
        os.killpg(first.pid, signal.SIGTERM)
        first.wait(timeout=120)
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
    assert not (project / WAITING_FILE).exists(), "a stopped paused run takes its wait with it"

    dead = "http://127.0.0.1:9"
    planted = json.loads(stale)
    planted.update(api_url=f"{dead}/api", page=f"{dead}/runs/flow-run/{planted['flow_run_id']}")
    (project / WAITING_FILE).write_text(json.dumps(planted))  # as a kill -9 leaves it
    second = start_cli(cli_env, config, "continue", project.name)
    try:
        _wait_for(
            lambda: (
                (run := waiting_run(prefect_api_url, project.name)) is not None
                and run.id != planted["flow_run_id"]
            ),
            "the new run's wait",
        )
        new_run = waiting_run(prefect_api_url, project.name)
        assert new_run is not None
        _wait_for(
            lambda: json.loads((project / WAITING_FILE).read_text())["flow_run_id"] == new_run.id,
            "the new run's own wait record",
        )
        recorded = json.loads((project / WAITING_FILE).read_text())
        assert recorded["api_url"] == prefect_api_url and dead not in str(recorded["page"])
        shown = run_cli(cli_env, config, "status", project.name)
        assert dead not in shown.stdout
        assert run_cli(cli_env, config, "distill", project.name).returncode == 0
        _wait_for(lambda: read_status(project).phase is Phase.HUMAN_REVIEW, "the distillation")
    finally:
        os.killpg(second.pid, signal.SIGKILL)
        output = second.communicate()[0]
    assert dead not in output


@pytest.mark.slow
def test_sigterm_mid_distillation_records_it_then_stops_instead_of_waiting(
    tmp_path: Path,
    cli_env: dict[str, str],
    cli_config: Callable[..., Path],
    prefect_api_url: str,
) -> None:
    """Before, SIGTERM killed the distillation in flight: the person's distill was lost."""
    config = cli_config(agents={"call_timeout_seconds": 60})
    slow = {"text": DEMO_STEPS["brain-dump-intake"]["text"], "sleep": 4}
    script = _script(tmp_path / "s.yaml", **{"brain-dump-intake": slow})
    env = {**cli_env, "THOUGHTFORGE_SCRIPT": str(script)}
    (tmp_path / "bd.md").write_text(BRAIN_DUMP)
    worker = start_cli(env, config, "run", str(tmp_path / "bd.md"))
    _wait_for(lambda: bool(_projects(tmp_path)), "project")
    project = _only_project(tmp_path)
    _wait_for(lambda: waiting_run(prefect_api_url, project.name) is not None, "the first wait")
    assert run_cli(env, config, "distill", project.name).returncode == 0
    prompts = project / ".scripted-agent" / "prompts"
    _wait_for(lambda: any(prompts.glob("*brain-dump-intake.md")), "the distillation to start")
    worker.send_signal(signal.SIGTERM)
    output = worker.stdout.read() if worker.stdout else ""
    assert worker.wait(timeout=60) == 130, output
    assert read_status(project).phase is Phase.HUMAN_REVIEW
    assert read_chat(project)[-1].content.startswith("## Deliverable Type")
    assert not (project / WAITING_FILE).exists(), "no wait is left for a run that is gone"


@pytest.mark.slow
def test_a_run_stopped_at_a_question_without_up_records_its_end_and_stops_its_server(
    tmp_path: Path, cli_env: dict[str, str], cli_config: Callable[..., Path]
) -> None:
    """Before, Prefect's own temporary server was in the command's process group: Ctrl-C stopped
    it with the run, which could not record how it ended and then retried its last logs for
    about a minute ("Error logging to API") before the prompt came back."""
    code, output, server = _stop_a_run_without_up(
        tmp_path, cli_env, cli_config, partial(_server_once_asked, tmp_path)
    )
    assert code == 130, output
    assert "Finished in state Crashed" in output and "Error logging to API" not in output, output
    assert not alive(server)
    assert not (_only_project(tmp_path) / ".processes.json").exists()
    assert not list((tmp_path / ".thoughtforge").glob("temporary-server-*.log"))


@pytest.mark.slow
def test_a_run_stopped_while_its_temporary_server_starts_leaves_no_server(
    tmp_path: Path, cli_env: dict[str, str], cli_config: Callable[..., Path]
) -> None:
    """The server is in its own session, so the signal does not reach it: the command that
    started it must stop it, also when it is stopped before the server answers."""
    code, output, servers = _stop_a_run_without_up(
        tmp_path, cli_env, cli_config, partial(_servers_of, tmp_path)
    )
    assert code == 130, output
    assert not any(alive(pid) for pid in servers)


@pytest.mark.slow
def test_a_run_killed_with_9_while_its_temporary_server_starts_leaves_no_server(
    tmp_path: Path, cli_env: dict[str, str], cli_config: Callable[..., Path]
) -> None:
    """Killed with -9, the command stops nothing, and nothing has recorded the server yet:
    before, it kept running (about 200 MB) until the machine restarted."""
    code, _, servers = _stop_a_run_without_up(
        tmp_path, cli_env, cli_config, partial(_servers_of, tmp_path), signal.SIGKILL
    )
    assert code == -signal.SIGKILL
    _wait_for(lambda: not any(alive(pid) for pid in servers), "the server to stop itself")


def _stop_a_run_without_up(
    tmp_path: Path,
    cli_env: dict[str, str],
    cli_config: Callable[..., Path],
    when: Callable[[], T | None],
    sig: signal.Signals = signal.SIGTERM,
) -> tuple[int, str, T]:
    """`run` with no server, sent `sig` to its group once `when()` holds (by default what the
    CLI takes as Ctrl-C: SIGTERM, as a test process may have been started ignoring SIGINT);
    its exit code, its output, and what `when()` held."""
    config = cli_config()
    (tmp_path / "bd.md").write_text(BRAIN_DUMP)
    alone = {k: v for k, v in cli_env.items() if k != "PREFECT_API_URL"}
    run = start_cli(alone, config, "run", str(tmp_path / "bd.md"))
    try:
        _wait_for(lambda: bool(when()), "the moment to stop the run")
        held = when()
        assert held
        os.killpg(run.pid, sig)
        output = run.communicate(timeout=120)[0]
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
    return run.returncode, output, held


def _server_once_asked(tmp_path: Path) -> int | None:
    """The project's temporary server, once the project waits for the human."""
    projects = _projects(tmp_path)
    if len(projects) != 1 or current_wait(projects[0]) is None:
        return None
    recorded = json.loads((projects[0] / ".processes.json").read_text())
    return next(
        (int(p) for p in recorded if b"prefect_server" in Path(f"/proc/{p}/cmdline").read_bytes()),
        None,
    )


def _servers_of(tmp_path: Path) -> list[int]:
    """The temporary servers started for this test (their Prefect home is in `tmp_path`)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            started = (
                b"thoughtforge.flows.runtime.prefect_server" in (proc / "cmdline").read_bytes()
            )
            ours = f"PREFECT_HOME={tmp_path}".encode() in (proc / "environ").read_bytes()
        except OSError:
            continue
        if started and ours:
            found.append(int(proc.name))
    return found


def _halted_in_phase_one(
    tmp_path: Path, cli_env: dict[str, str], cli_config: Callable[..., Path]
) -> tuple[dict[str, str], Path, Path]:
    """A batch run whose distiller fails twice: the project halts in Phase 1 (the script then
    distils, for the resume)."""
    config = cli_config()
    flaky = [{"text": "", "exit": 3, "stderr": "down"}] * 2 + [{"text": DISTILLATION}]
    script = _script(tmp_path / "s.yaml", **{"brain-dump-intake": flaky})
    (tmp_path / "bd.md").write_text(BRAIN_DUMP)
    env = {**cli_env, "THOUGHTFORGE_SCRIPT": str(script)}
    assert run_cli(env, config, "run", str(tmp_path / "bd.md"), "--auto-confirm").returncode == 3
    return env, config, _only_project(tmp_path)
