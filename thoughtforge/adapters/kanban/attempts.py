"""Code steps as Vibe Kanban task attempts (`vibekanban.code_execution`), not direct agent calls.

Vibe Kanban 0.0.71 runs an attempt in a git worktree of its project's repository, on a branch of
its own, commits what the executor changed there, and on request squashes that branch into the
base branch. So each code project gets a Vibe Kanban project whose repository is the ThoughtForge
project itself (Vibe Kanban allows one project per repository path: it is found by that path),
each step a task whose description is the prompt, and each try an attempt on that task:

    POST /api/task-attempts {task_id, executor_profile_id: {executor, variant}, base_branch}
    GET  /api/execution-processes?task_attempt_id=…    status: running|completed|failed|killed
    POST /api/task-attempts/{id}/stop                    at the timeout
    GET  /api/task-attempts/{id}/branch-status           commits_ahead: is there work to merge?
    POST /api/task-attempts/{id}/merge                   one squash commit on the base branch
    GET  /api/execution-processes/{id}/raw-logs          the executor's stdout/stderr (SSE)

The executor reads `Title: <step>\\n\\nDescription:<prompt>` on stdin, in the worktree; it does
not get ThoughtForge's `THOUGHTFORGE_*` environment. An attempt has ended when no process runs
and Vibe Kanban has moved the task out of `inprogress`, which it does only after committing the
agent's work, so a merge never races that commit. The project's own pending changes are
committed first, so the worktree starts from them and Vibe Kanban's merge (which refuses a main
tree with uncommitted tracked changes) can run. A merged step is committed: its work is not left
uncommitted as a direct call leaves it.

Vibe Kanban falls back to an executor's `DEFAULT` variant for a variant it does not know, so the
configured profile is checked against `GET /api/profiles` before any attempt. Like a direct call,
a failed try (HTTP error, attempt failed or killed, timeout, merge refused) is retried once, as a
new attempt on the same task, and then raises `AgentFailure`.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from thoughtforge.adapters import http
from thoughtforge.adapters.agents.invoke import ATTEMPTS, AgentCall
from thoughtforge.adapters.kanban.vibekanban import server_url
from thoughtforge.config import Config
from thoughtforge.core import commit_own, log_event, utc_now
from thoughtforge.errors import AgentFailure, ServiceError

POLL_SECONDS = 0.5
SLOW_CALL_SECONDS = 60.0
"""Starting an attempt (it creates a worktree) and merging run git inside the request; stopping
waits 2 s after each of SIGINT, SIGTERM and SIGKILL until the executor is gone."""
_EXCERPT = 300
_FAILED = ("failed", "killed")
_VK_MESSAGE = re.compile(r'"message":("(?:[^"\\]|\\.)*")')


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
    """One try failed; the message says how."""


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
        failures: list[str] = []
        task_id: str | None = None
        for attempt in range(1, ATTEMPTS + 1):
            started_at, started = utc_now(), time.monotonic()
            result: AttemptResult | None = None
            failure: str | None = None
            try:
                api = _Api(server_url(settings), settings.timeout_seconds)
                if task_id is None:
                    task_id = self._new_task(api, prompt, call)
                result = self._try(api, task_id, call)
            except (_Failed, ServiceError) as exc:
                failure = str(exc)
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
                failure=failure,
            )
            if result is not None:
                return result
            failures.append(failure or "no reason given")
        raise AgentFailure(self.agent, call.step, failures)

    # --- one step: its task, then one attempt per try -----------------------------------------

    def _new_task(self, api: _Api, prompt: str, call: AgentCall) -> str:
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

    def _try(self, api: _Api, task_id: str, call: AgentCall) -> AttemptResult:
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
                f"{exc} (the executor exited before it read the prompt: is its command installed?)"
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
            raise _Failed(self._failure(api, short, failed[-1]))
        branch = api.call("GET", f"/api/task-attempts/{attempt_id}").get("branch")
        branch_status = api.call("GET", f"/api/task-attempts/{attempt_id}/branch-status")
        if branch_status.get("has_uncommitted_changes"):
            raise _Failed(
                f"task attempt {short} left uncommitted changes on its branch {branch}: "
                "Vibe Kanban could not commit them"
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
                    f"task attempt {short}: its branch {branch} was not merged: {exc}"
                ) from None
            merged = _commit_of(project_dir, base)
        coding = [p for p in processes if p.get("run_reason") == "codingagent"]
        stdout, _ = _output(api, str(coding[-1]["id"])) if coding else ("", "")
        answer = _answer(stdout)[-self._config.agents.max_reply_bytes :]
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
        self, api: _Api, attempt_id: str, task_id: str, call: AgentCall
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
                    f"task attempt {attempt_id[:8]} did not finish within {timeout:g}s ({stopped})"
                )
            time.sleep(min(POLL_SECONDS, remaining))

    def _failure(self, api: _Api, short: str, process: dict[str, Any]) -> str:
        reason = (
            f"task attempt {short}: its {process.get('run_reason')} process {process['status']}"
        )
        if process.get("exit_code") is not None:
            reason += f" with exit code {process['exit_code']}"
        stdout, stderr = _output(api, str(process["id"]))
        excerpt = (stderr.strip() or stdout.strip())[-_EXCERPT:]
        return reason + (f": {excerpt}" if excerpt else "")

    # --- the Vibe Kanban side -------------------------------------------------------------------

    def _check_profile(self, api: _Api) -> None:
        """Vibe Kanban would run an unknown variant as the executor's DEFAULT: refuse it here."""
        content = api.call("GET", "/api/profiles").get("content") or "{}"
        try:
            executors = json.loads(content).get("executors") or {}
        except (ValueError, AttributeError):
            raise _Failed("Vibe Kanban's /api/profiles is not the profiles JSON") from None
        offered = sorted(
            executor if variant == "DEFAULT" else f"{executor}:{variant}"
            for executor, variants in executors.items()
            for variant in variants
        )
        wanted = self._executor if self._variant in (None, "DEFAULT") else self.profile
        if wanted not in offered:
            raise _Failed(
                f"Vibe Kanban has no executor profile '{self.profile}' "
                f"(vibekanban.executor_profile); it offers: {', '.join(offered) or 'none'}"
            )

    def _project_id(self, api: _Api, project_dir: Path) -> str:
        """The Vibe Kanban project whose repository is this project's, created on first use."""
        path = project_dir.resolve()
        for project in api.call("GET", "/api/projects"):
            repo = project.get("git_repo_path")
            if repo and Path(repo).resolve() == path:
                return str(project["id"])
        name = f"{self._config.vibekanban.project_name} · {project_dir.name}"
        body = {"name": name, "git_repo_path": str(path), "use_existing_repo": True}
        return str(api.call("POST", "/api/projects", body)["id"])


class _Api:
    def __init__(self, url: str, timeout: float) -> None:
        self.url = url
        self._timeout = timeout

    def call(self, method: str, path: str, body: Any = None, *, slow: bool = False) -> Any:
        """The reply's `data`; `ServiceError` (with Vibe Kanban's own message) for a refusal,
        which 0.0.71 sends as HTTP 200 or as an error status."""
        timeout = max(self._timeout, SLOW_CALL_SECONDS) if slow else self._timeout
        try:
            reply = http.request(method, self.url + path, json_body=body, timeout=timeout)
        except ServiceError as exc:
            message = _message_in(str(exc))
            if message is None:
                raise
            raise ServiceError(
                f"Vibe Kanban refused {method} {path}: {message}", status=exc.status
            ) from None
        answer = reply.json()
        if not isinstance(answer, dict) or not answer.get("success"):
            message = answer.get("message") if isinstance(answer, dict) else None
            raise ServiceError(
                f"Vibe Kanban refused {method} {path}: {message or 'no reason given'}",
                status=reply.status,
            )
        return answer.get("data")

    def logs(self, process_id: str) -> str:
        """The SSE stream of an ended process's raw logs (it ends with a `finished` event)."""
        path = f"/api/execution-processes/{process_id}/raw-logs"
        return http.request("GET", self.url + path, timeout=self._timeout).body.decode(
            "utf-8", "replace"
        )


def _message_in(error: str) -> str | None:
    """Vibe Kanban's `message` in the JSON of an error reply, as `http` quotes it."""
    match = _VK_MESSAGE.search(error)
    if match is None:
        return None
    try:
        return str(json.loads(match.group(1)))
    except ValueError:
        return None


def _output(api: _Api, process_id: str) -> tuple[str, str]:
    """A process's stdout and stderr, best effort: empty when Vibe Kanban has none to give."""
    try:
        stream = api.logs(process_id)
    except ServiceError:
        return "", ""
    out: list[str] = []
    err: list[str] = []
    for line in stream.splitlines():
        if not line.startswith("data:"):
            continue
        try:
            patches = json.loads(line[5:])
        except ValueError:
            continue
        for patch in patches if isinstance(patches, list) else []:
            value = patch.get("value") if isinstance(patch, dict) else None
            if isinstance(value, dict) and isinstance(value.get("content"), str):
                target = {"STDOUT": out, "STDERR": err}.get(str(value.get("type")))
                if target is not None:
                    target.append(value["content"])
    return "".join(out), "".join(err)


def _answer(stdout: str) -> str:
    """A Claude Code stream-json `result` (what VK's Claude executor prints), else the stdout."""
    for line in reversed(stdout.splitlines()):
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if (
            isinstance(event, dict)
            and event.get("type") == "result"
            and isinstance(event.get("result"), str)
        ):
            return event["result"].strip()
    return stdout.strip()


def _branch(project_dir: Path) -> str:
    """The branch the project is on: the attempt's base, and where its work is merged."""
    import git

    with git.Repo(project_dir) as repo:
        if repo.head.is_detached:
            raise _Failed(f"{project_dir} is on no branch (detached HEAD): nothing to merge into")
        return repo.active_branch.name


def _commit_of(project_dir: Path, branch: str) -> str:
    import git

    with git.Repo(project_dir) as repo:
        return repo.commit(branch).hexsha
