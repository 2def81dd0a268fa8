"""One code step as a Vibe Kanban task and its attempts: the project's task, one attempt per
try, waited for, then merged into the project; see the package's docstring for the API calls."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from thoughtforge.adapters.agents.agent_call import AgentCall
from thoughtforge.adapters.agents.invoke import ATTEMPTS
from thoughtforge.adapters.kanban.attempts.process_logs import agent_answer, process_output
from thoughtforge.adapters.kanban.client import VibeKanbanClient
from thoughtforge.adapters.kanban.vibekanban import server_url
from thoughtforge.config import Config
from thoughtforge.core.project_log import log_event
from thoughtforge.core.staging import commit_own
from thoughtforge.core.state import utc_now
from thoughtforge.errors import AgentFailure, AttemptFailure, FailureKind, ServiceError

POLL_SECONDS = 0.5
_EXCERPT = 300
_FAILED = ("failed", "killed")


class AttemptResult(BaseModel):
    """One attempt that worked: what `run` summarises."""

    task_id: str
    attempt_id: str
    branch: str | None
    base_branch: str
    merged_commit: str | None
    """The squash commit on `base_branch`; None when the agent changed nothing."""
    answer: str
    """The agent's last word: a Claude stream-json `result`, else the tail of its stdout."""
    summary: str


class _Failed(Exception):
    """One try failed; the message says how, `kind` what kind of failure it was."""

    def __init__(self, kind: FailureKind, reason: str) -> None:
        self.kind = kind
        super().__init__(reason)


class VibeKanbanCoder:
    """Runs one code step as a Vibe Kanban task attempt and merges its branch into the project."""

    def __init__(self, config: Config) -> None:
        self._config = config
        self.profile = config.vibekanban.executor_profile
        executor, _, variant = self.profile.partition(":")
        self._executor = executor
        self._variant = variant or None
        self.agent = f"vibe-kanban:{self.profile}"
        """The agent name its failures carry."""

    def run(self, prompt: str, call: AgentCall) -> str:
        """What the attempt did, as text; `AgentFailure` after two failed tries."""
        return self.run_attempt(prompt, call).summary

    def run_attempt(self, prompt: str, call: AgentCall) -> AttemptResult:
        settings = self._config.vibekanban
        failures: list[AttemptFailure] = []
        task_id: str | None = None
        for attempt in range(1, ATTEMPTS + 1):
            started_at, started = utc_now(), time.monotonic()
            result: AttemptResult | None = None
            failure: AttemptFailure | None = None
            try:
                api = VibeKanbanClient(server_url(settings), settings.timeout_seconds)
                if task_id is None:
                    task_id = self._new_task(api, prompt, call)
                result = self._try(api, task_id, call)
            except _Failed as exc:
                failure = AttemptFailure(kind=exc.kind, reason=str(exc))
            except ServiceError as exc:
                failure = AttemptFailure(kind=FailureKind.UNREACHABLE, reason=str(exc))
            log_event(
                call.project_dir,
                "agent_call",
                level="info" if failure is None else "warning",
                agent=self.agent,
                step=call.step,
                attempt=attempt,
                started_at=started_at.isoformat(),
                seconds=round(time.monotonic() - started, 3),
                prompt_chars=len(prompt),
                failure=None if failure is None else failure.reason,
            )
            if result is not None:
                return result
            failures.append(
                failure or AttemptFailure(kind=FailureKind.UNAVAILABLE, reason="no reason given")
            )
        raise AgentFailure(self.agent, call.step, failures)

    # --- one step: its task, then one attempt per try -----------------------------------------

    def _new_task(self, api: VibeKanbanClient, prompt: str, call: AgentCall) -> str:
        self._check_profile(api)
        project_id = self._project_id(api, call.project_dir)
        title = call.step if call.iteration is None else f"{call.step} #{call.iteration}"
        # Vibe Kanban sends `Title: …\n\nDescription:<description>`: the prompt starts on a line
        # of its own.
        body = {"project_id": project_id, "title": title, "description": "\n" + prompt}
        task_id = str(api.call("POST", "/api/tasks", body)["id"])
        log_event(
            call.project_dir,
            "vibe_kanban_task",
            task_id=task_id,
            vk_project_id=project_id,
            title=title,
        )
        return task_id

    def _try(self, api: VibeKanbanClient, task_id: str, call: AgentCall) -> AttemptResult:
        project_dir = call.project_dir
        base = _branch(project_dir)
        commit_own(
            project_dir,
            f"{call.step}: the project as the Vibe Kanban attempt starts",
            agent_files=True,
        )
        body = {
            "task_id": task_id,
            "executor_profile_id": {"executor": self._executor, "variant": self._variant},
            "base_branch": base,
        }
        try:
            attempt_id = str(api.call("POST", "/api/task-attempts", body, slow=True)["id"])
        except ServiceError as exc:
            if "Broken pipe" not in str(exc):
                raise
            # Vibe Kanban writes the prompt to the executor's stdin as it starts it.
            raise _Failed(
                FailureKind.UNAVAILABLE,
                f"{exc} (the executor exited before it read the prompt: is its command installed?)",
            ) from None
        short = attempt_id[:8]
        log_event(
            project_dir,
            "vibe_kanban_attempt",
            attempt_id=attempt_id,
            task_id=task_id,
            profile=self.profile,
            base_branch=base,
            status="started",
        )
        processes = self._wait(api, attempt_id, task_id, call)
        failed = [p for p in processes if p.get("status") in _FAILED]
        if failed:
            raise _Failed(FailureKind.EXITED, self._failure(api, short, failed[-1]))
        branch = api.call("GET", f"/api/task-attempts/{attempt_id}").get("branch")
        branch_status = api.call("GET", f"/api/task-attempts/{attempt_id}/branch-status")
        if branch_status.get("has_uncommitted_changes"):
            raise _Failed(
                FailureKind.REFUSED,
                f"task attempt {short} left uncommitted changes on its branch {branch}: "
                "Vibe Kanban could not commit them",
            )
        merged: str | None = None
        if branch_status.get("commits_ahead"):
            # The run may have written tracked files meanwhile; the merge needs a clean tree.
            commit_own(
                project_dir, f"{call.step}: the project as the attempt is merged", agent_files=True
            )
            try:
                api.call("POST", f"/api/task-attempts/{attempt_id}/merge", {}, slow=True)
            except ServiceError as exc:
                raise _Failed(
                    FailureKind.REFUSED,
                    f"task attempt {short}: its branch {branch} was not merged: {exc}",
                ) from None
            merged = _commit_of(project_dir, base)
        coding = [p for p in processes if p.get("run_reason") == "codingagent"]
        stdout, _ = process_output(api, str(coding[-1]["id"])) if coding else ("", "")
        answer = agent_answer(stdout)[-self._config.agents.max_reply_bytes :]
        log_event(
            project_dir,
            "vibe_kanban_attempt",
            attempt_id=attempt_id,
            task_id=task_id,
            branch=branch,
            status="merged" if merged else "no_changes",
            merged_commit=merged,
        )
        outcome = (
            f"merged into {base} as {merged[:12]}."
            if merged
            else "the agent changed nothing, so nothing was merged."
        )
        summary = f"Vibe Kanban task attempt {short} ({self.profile}, branch {branch}): {outcome}"
        return AttemptResult(
            task_id=task_id,
            attempt_id=attempt_id,
            branch=branch,
            base_branch=base,
            merged_commit=merged,
            answer=answer,
            summary=summary + (f"\n\n{answer}" if answer else ""),
        )

    def _wait(
        self, api: VibeKanbanClient, attempt_id: str, task_id: str, call: AgentCall
    ) -> list[dict[str, Any]]:
        """The attempt's processes once it has ended; stopped, then `_Failed`, at the timeout."""
        timeout = self._config.agents.call_timeout_seconds
        deadline = time.monotonic() + timeout
        seen: dict[str, str] = {}
        while True:
            path = f"/api/execution-processes?task_attempt_id={attempt_id}"
            processes: list[dict[str, Any]] = list(api.call("GET", path))
            for process in processes:
                status = str(process.get("status"))
                if seen.get(str(process.get("id"))) != status:
                    seen[str(process.get("id"))] = status
                    log_event(
                        call.project_dir,
                        "vibe_kanban_process",
                        attempt_id=attempt_id,
                        process_id=process.get("id"),
                        run_reason=process.get("run_reason"),
                        status=status,
                        exit_code=process.get("exit_code"),
                    )
            if processes and all(p.get("status") != "running" for p in processes):
                if any(p.get("status") in _FAILED for p in processes):
                    return processes
                if api.call("GET", f"/api/tasks/{task_id}").get("status") != "inprogress":
                    return processes
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                try:
                    api.call("POST", f"/api/task-attempts/{attempt_id}/stop", {}, slow=True)
                    stopped = "stopped"
                except ServiceError as exc:
                    stopped = f"stopping it failed: {exc}"
                raise _Failed(
                    FailureKind.TIMED_OUT,
                    f"task attempt {attempt_id[:8]} did not finish within {timeout:g}s ({stopped})",
                )
            time.sleep(min(POLL_SECONDS, remaining))

    def _failure(self, api: VibeKanbanClient, short: str, process: dict[str, Any]) -> str:
        reason = (
            f"task attempt {short}: its {process.get('run_reason')} process {process['status']}"
        )
        if process.get("exit_code") is not None:
            reason += f" with exit code {process['exit_code']}"
        stdout, stderr = process_output(api, str(process["id"]))
        excerpt = (stderr.strip() or stdout.strip())[-_EXCERPT:]
        return reason + (f": {excerpt}" if excerpt else "")

    # --- the Vibe Kanban side -------------------------------------------------------------------

    def _check_profile(self, api: VibeKanbanClient) -> None:
        """Vibe Kanban would run an unknown variant as the executor's DEFAULT: refuse it here."""
        content = api.call("GET", "/api/profiles").get("content") or "{}"
        try:
            executors = json.loads(content).get("executors") or {}
        except (ValueError, AttributeError):
            raise _Failed(
                FailureKind.UNREADABLE, "Vibe Kanban's /api/profiles is not the profiles JSON"
            ) from None
        offered = sorted(
            executor if variant == "DEFAULT" else f"{executor}:{variant}"
            for executor, variants in executors.items()
            for variant in variants
        )
        wanted = self._executor if self._variant in (None, "DEFAULT") else self.profile
        if wanted not in offered:
            raise _Failed(
                FailureKind.UNAVAILABLE,
                f"Vibe Kanban has no executor profile '{self.profile}' "
                f"(vibekanban.executor_profile); it offers: {', '.join(offered) or 'none'}",
            )

    def _project_id(self, api: VibeKanbanClient, project_dir: Path) -> str:
        """The Vibe Kanban project whose repository is this project's, created on first use."""
        path = project_dir.resolve()
        for project in api.call("GET", "/api/projects"):
            repo = project.get("git_repo_path")
            if repo and Path(repo).resolve() == path:
                return str(project["id"])
        name = f"{self._config.vibekanban.project_name} · {project_dir.name}"
        body = {"name": name, "git_repo_path": str(path), "use_existing_repo": True}
        return str(api.call("POST", "/api/projects", body)["id"])


def _branch(project_dir: Path) -> str:
    """The branch the project is on: the attempt's base, and where its work is merged."""
    import git

    with git.Repo(project_dir) as repo:
        if repo.head.is_detached:
            raise _Failed(
                FailureKind.REFUSED,
                f"{project_dir} is on no branch (detached HEAD): nothing to merge into",
            )
        return repo.active_branch.name


def _commit_of(project_dir: Path, branch: str) -> str:
    import git

    with git.Repo(project_dir) as repo:
        return repo.commit(branch).hexsha
