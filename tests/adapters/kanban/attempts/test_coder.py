"""Code steps as Vibe Kanban task attempts, against the real Vibe Kanban 0.0.71 server.

No coding agent runs here, so the executors are Vibe Kanban's own `CLAUDE_CODE` executor with
its command replaced (`base_command_override`, a profiles setting) by a script: Vibe Kanban runs
it as it runs Claude Code (`<command> -p --verbose --output-format=stream-json`, the prompt on
stdin, in the attempt's worktree), then commits, reports and merges exactly as for a real agent.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from tests.vibe_kanban import VibeKanban, free_port
from thoughtforge.adapters.agents import AgentCall
from thoughtforge.adapters.kanban.attempts import VibeKanbanCoder
from thoughtforge.config import Config, VibeKanbanConfig
from thoughtforge.core.creation import create_project
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import read_events
from thoughtforge.errors import AgentFailure, FailureKind

PROMPT = "Build the greeter: src/hello.py prints hello."
RESULT_LINE = json.dumps({"type": "result", "is_error": False, "result": "Wrote src/hello.py."})


@pytest.fixture
def executor(vibe_kanban: VibeKanban, tmp_path: Path) -> Callable[..., str]:
    """A new `CLAUDE_CODE:<variant>` profile on the server whose command is a script with this
    body (or `command` itself)."""

    def register(body: str = "", command: str | None = None) -> str:
        # Letters only: Vibe Kanban renames a variant such as `TF_2X` to `TF_2_X`.
        variant = "TF_" + "".join(chr(ord("A") + int(c, 16)) for c in uuid.uuid4().hex[:12])
        if command is None:
            script = tmp_path / f"{variant.lower()}.sh"
            script.write_text("#!/bin/sh\n" + body)
            script.chmod(0o755)
            command = shlex.quote(str(script))
        profiles = json.loads(vibe_kanban.call("GET", "/api/profiles")["content"])
        profiles["executors"]["CLAUDE_CODE"][variant] = {
            "CLAUDE_CODE": {"base_command_override": command}
        }
        vibe_kanban.call("PUT", "/api/profiles", profiles)
        return f"CLAUDE_CODE:{variant}"

    return register


@pytest.fixture
def project(config: Config, vibe_kanban: VibeKanban) -> Iterator[Project]:
    """A ThoughtForge project; its Vibe Kanban tasks (and their worktrees) go with the test."""
    created = create_project(config)
    yield created
    for task in vk_tasks(vibe_kanban, created):
        vibe_kanban.call("DELETE", f"/api/tasks/{task['id']}")


def coder(config: Config, vibe_kanban: VibeKanban, profile: str) -> VibeKanbanCoder:
    vibekanban = VibeKanbanConfig(
        url=vibe_kanban.url, code_execution=True, executor_profile=profile
    )
    return VibeKanbanCoder(config.model_copy(update={"vibekanban": vibekanban}))


def step(project: Project, name: str = "code-build", iteration: int | None = None) -> AgentCall:
    return AgentCall(step=name, project_dir=project.dir, phase="building", iteration=iteration)


def vk_project(server: VibeKanban, project: Project) -> dict[str, Any] | None:
    return next(
        (
            p
            for p in server.call("GET", "/api/projects")
            if Path(p["git_repo_path"]).resolve() == project.dir.resolve()
        ),
        None,
    )


def vk_tasks(server: VibeKanban, project: Project) -> list[dict[str, Any]]:
    found = vk_project(server, project)
    return server.call("GET", f"/api/tasks?project_id={found['id']}") if found else []


def attempts(server: VibeKanban, task_id: str) -> list[dict[str, Any]]:
    return server.call("GET", f"/api/task-attempts?task_id={task_id}")


def git(project: Project, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(project.dir), *args], check=True, capture_output=True, text=True
    ).stdout.strip()


def test_an_attempt_s_work_is_merged_into_the_project(
    config: Config,
    vibe_kanban: VibeKanban,
    project: Project,
    executor: Callable[..., str],
) -> None:
    profile = executor(
        "cat > prompt.txt\n"
        "mkdir -p src\n"
        "printf 'print(\"hello\")\\n' > src/hello.py\n"
        "cp notes.md seen-notes.md\n"
        'echo \'{"type":"assistant","message":{"content":[]}}\'\n'
        f"echo {shlex.quote(RESULT_LINE)}\n"
    )
    (project.dir / "notes.md").write_text("written before the step, not yet committed\n")
    before = git(project, "rev-parse", "HEAD")

    result = coder(config, vibe_kanban, profile).run_attempt(PROMPT, step(project, iteration=2))

    # The work is in the project's tree and history, as one squash commit on its branch.
    assert (project.dir / "src" / "hello.py").read_text() == 'print("hello")\n'
    assert result.merged_commit == git(project, "rev-parse", "HEAD")
    assert result.base_branch == "main"
    assert git(project, "status", "--porcelain") == ""
    assert git(project, "log", "-1", "--format=%s").startswith("code-build #2 (vibe-kanban ")
    assert "src/hello.py" in git(project, "diff", "--name-only", f"{before}..HEAD")
    # The attempt started from the project as it was: its uncommitted notes were committed.
    assert (project.dir / "seen-notes.md").read_text() == (project.dir / "notes.md").read_text()
    # The executor got the prompt on stdin, under the task's title.
    assert (
        project.dir / "prompt.txt"
    ).read_text() == f"Title: code-build #2\n\nDescription:\n{PROMPT}"
    # The answer is the stream-json result, after a line saying what happened.
    assert result.answer == "Wrote src/hello.py."
    assert result.summary.startswith(f"Vibe Kanban task attempt {result.attempt_id[:8]} ({profile}")
    assert f"merged into main as {result.merged_commit[:12]}" in result.summary
    assert result.summary.endswith("\n\nWrote src/hello.py.")
    # Vibe Kanban: one project for this repository, one task for the step, done once merged.
    assert vk_project(vibe_kanban, project)["name"] == f"ThoughtForge · {project.id}"
    [task] = vk_tasks(vibe_kanban, project)
    assert (task["title"], task["status"]) == ("code-build #2", "done")
    [attempt] = attempts(vibe_kanban, task["id"])
    assert attempt["id"] == result.attempt_id
    assert attempt["branch"] == result.branch
    # Progress is in the project log.
    events = read_events(project.dir)
    statuses = [e["status"] for e in events if e["event"] == "vibe_kanban_attempt"]
    assert statuses == ["started", "merged"]
    processes = [e for e in events if e["event"] == "vibe_kanban_process"]
    assert processes[-1]["status"] == "completed"
    [call] = [e for e in events if e["event"] == "agent_call"]
    assert (call["agent"], call["step"], call["failure"]) == (
        f"vibe-kanban:{profile}",
        "code-build",
        None,
    )


def test_the_next_step_reuses_the_project_and_sees_the_last_one_s_work(
    config: Config,
    vibe_kanban: VibeKanban,
    project: Project,
    executor: Callable[..., str],
) -> None:
    profile = executor(
        "cat > /dev/null\n"
        "if [ -e first.txt ]; then echo fixed > second.txt; else echo built > first.txt; fi\n"
    )
    run = coder(config, vibe_kanban, profile).run
    run(PROMPT, step(project, "code-build"))
    run(PROMPT, step(project, "code-fix", iteration=1))

    # The second attempt's worktree held the first one's work.
    assert (project.dir / "first.txt").read_text() == "built\n"
    assert (project.dir / "second.txt").read_text() == "fixed\n"
    repos = [Path(p["git_repo_path"]) for p in vibe_kanban.call("GET", "/api/projects")]
    assert repos.count(project.dir.resolve()) == 1
    titles = sorted(t["title"] for t in vk_tasks(vibe_kanban, project))
    assert titles == ["code-build", "code-fix #1"]


def test_an_agent_that_changes_nothing_merges_nothing(
    config: Config,
    vibe_kanban: VibeKanban,
    project: Project,
    executor: Callable[..., str],
) -> None:
    profile = executor("cat > /dev/null\necho 'nothing to do'\n")
    before = git(project, "rev-parse", "HEAD")

    result = coder(config, vibe_kanban, profile).run_attempt(PROMPT, step(project))

    assert result.merged_commit is None
    assert git(project, "rev-parse", "HEAD") == before
    assert "the agent changed nothing, so nothing was merged" in result.summary
    assert result.answer == "nothing to do"


def test_an_executor_that_cannot_start_is_an_agent_failure(
    config: Config,
    vibe_kanban: VibeKanban,
    project: Project,
    executor: Callable[..., str],
) -> None:
    """What a missing agent CLI looks like: the executor's shell finds no such command."""
    profile = executor(command="claude-code-not-installed")
    before = git(project, "rev-parse", "HEAD")

    with pytest.raises(AgentFailure) as failure:
        coder(config, vibe_kanban, profile).run(PROMPT, step(project))

    assert (failure.value.agent, failure.value.step) == (f"vibe-kanban:{profile}", "code-build")
    assert len(failure.value.attempts) == 2
    [task] = vk_tasks(vibe_kanban, project)
    tried = sorted(attempts(vibe_kanban, task["id"]), key=lambda a: a["created_at"])
    assert len(tried) == 2  # each try is a new attempt on the step's task
    ids = "|".join(attempt["id"][:8] for attempt in tried)
    failed = re.compile(
        rf"task attempt ({ids}): its codingagent process failed with exit code 127: "
        r"bash: line 1: claude-code-not-installed: command not found"
    )
    # When the shell exits before Vibe Kanban has written the prompt, starting the attempt fails.
    refused = re.compile(
        r"Vibe Kanban refused POST /api/task-attempts: ContainerError: Broken pipe .*"
        r"\(the executor exited before it read the prompt: is its command installed\?\)"
    )
    for why in (a.reason for a in failure.value.attempts):
        assert failed.fullmatch(why) or refused.fullmatch(why), why
    assert git(project, "rev-parse", "HEAD") == before  # nothing merged


def test_an_executor_that_quits_before_reading_the_prompt_fails_to_start(
    config: Config,
    vibe_kanban: VibeKanban,
    project: Project,
    executor: Callable[..., str],
) -> None:
    """Vibe Kanban writes the prompt to the executor's stdin as it starts the attempt: a prompt
    larger than a pipe's buffer, to a shell that closed its stdin, cannot be written."""
    profile = executor(command="exec 0<&-; exit 127 #")

    with pytest.raises(AgentFailure) as failure:
        coder(config, vibe_kanban, profile).run("x" * 200_000, step(project))

    for why in (a.reason for a in failure.value.attempts):
        assert why.startswith("Vibe Kanban refused POST /api/task-attempts: ContainerError: ")
        assert why.endswith(
            "(the executor exited before it read the prompt: is its command installed?)"
        )


def test_a_failed_try_is_retried_as_a_new_attempt(
    config: Config,
    vibe_kanban: VibeKanban,
    project: Project,
    executor: Callable[..., str],
    tmp_path: Path,
) -> None:
    marker = tmp_path / "tried-once"
    profile = executor(
        "cat > /dev/null\n"
        f"if [ ! -e {marker} ]; then touch {marker}; echo 'rate limited' >&2; exit 3; fi\n"
        "echo second > second.txt\n"
    )

    result = coder(config, vibe_kanban, profile).run_attempt(PROMPT, step(project))

    assert (project.dir / "second.txt").read_text() == "second\n"
    calls = [e for e in read_events(project.dir) if e["event"] == "agent_call"]
    assert [c["attempt"] for c in calls] == [1, 2]
    assert "exit code 3: rate limited" in calls[0]["failure"]
    assert calls[1]["failure"] is None
    [task] = vk_tasks(vibe_kanban, project)
    assert result.attempt_id in [a["id"] for a in attempts(vibe_kanban, task["id"])]


def test_an_attempt_past_the_timeout_is_stopped_and_fails(
    config: Config,
    vibe_kanban: VibeKanban,
    project: Project,
    executor: Callable[..., str],
) -> None:
    profile = executor("cat > /dev/null\nsleep 60\n")
    config.agents.call_timeout_seconds = 1

    with pytest.raises(AgentFailure) as failure:
        coder(config, vibe_kanban, profile).run(PROMPT, step(project))

    for why in (a.reason for a in failure.value.attempts):
        assert why.startswith("task attempt ")
        assert why.endswith("did not finish within 1s (stopped)")
    [task] = vk_tasks(vibe_kanban, project)
    for attempt in attempts(vibe_kanban, task["id"]):
        path = f"/api/execution-processes?task_attempt_id={attempt['id']}"
        assert [p["status"] for p in vibe_kanban.call("GET", path)] == ["killed"]


def test_a_merge_conflict_is_an_agent_failure(
    config: Config,
    vibe_kanban: VibeKanban,
    project: Project,
    executor: Callable[..., str],
) -> None:
    """While the agent works, someone commits a different version of the same file."""
    (project.dir / "greeting.txt").write_text("hello\n")
    profile = executor(
        "cat > /dev/null\n"
        "echo 'agent version' > greeting.txt\n"
        'main=$(dirname "$(git rev-parse --path-format=absolute --git-common-dir)")\n'
        'echo "human version $$" > "$main/greeting.txt"\n'
        'git -C "$main" commit -qam "a human edit"\n'
    )

    with pytest.raises(AgentFailure) as failure:
        coder(config, vibe_kanban, profile).run(PROMPT, step(project))

    for why in (a.reason for a in failure.value.attempts):
        assert "was not merged" in why
        assert "Merge conflicts" in why
    assert (project.dir / "greeting.txt").read_text().startswith("human version")
    assert git(project, "status", "--porcelain") == ""
    [task] = vk_tasks(vibe_kanban, project)
    assert task["status"] == "inreview"  # Vibe Kanban leaves it for a human to resolve


def test_an_unknown_profile_is_refused_before_any_attempt(
    config: Config, vibe_kanban: VibeKanban, project: Project
) -> None:
    """Vibe Kanban itself would run an unknown variant as the executor's DEFAULT."""
    with pytest.raises(AgentFailure) as failure:
        coder(config, vibe_kanban, "CLAUDE_CODE:NO_SUCH_VARIANT").run(PROMPT, step(project))

    why = failure.value.attempts[0].reason
    assert "Vibe Kanban has no executor profile 'CLAUDE_CODE:NO_SUCH_VARIANT'" in why
    assert "CLAUDE_CODE:PLAN" in why and "CODEX" in why
    assert vk_tasks(vibe_kanban, project) == []


def test_a_server_that_is_down_is_an_agent_failure(config: Config, project: Project) -> None:
    down = VibeKanbanConfig(url=f"http://127.0.0.1:{free_port()}", code_execution=True)
    coder_down = VibeKanbanCoder(config.model_copy(update={"vibekanban": down}))

    with pytest.raises(AgentFailure) as failure:
        coder_down.run(PROMPT, step(project))

    assert failure.value.agent == "vibe-kanban:CLAUDE_CODE"
    assert "/api/profiles" in failure.value.attempts[0].reason
    assert "refused" in failure.value.attempts[0].reason.lower()
    assert "did not answer" in failure.value.attempts[1].reason
    assert {a.kind for a in failure.value.attempts} == {FailureKind.UNREACHABLE}


def test_the_settings_default_to_direct_calls_and_check_the_profile() -> None:
    settings = VibeKanbanConfig()
    assert (settings.code_execution, settings.executor_profile) == (False, "CLAUDE_CODE")
    assert VibeKanbanConfig(executor_profile="CODEX:HIGH").executor_profile == "CODEX:HIGH"
    for wrong in ("claude_code", "CLAUDE_CODE:", "CLAUDE_CODE:PLAN:X", ""):
        with pytest.raises(ValidationError):
            VibeKanbanConfig(executor_profile=wrong)
