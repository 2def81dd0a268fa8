"""The Prefect REST calls the doors need: is a server there, which run of a project is active
or waits, resume it with the person's input, start a deployment's run, cancel a project's runs.

Eight endpoints of Prefect's documented REST API (`/health`; the flow runs' filter, read, resume,
input and set_state; a deployment by name and its create_flow_run), called directly with the
standard library so `say`/`confirm` stay fast (importing Prefect's client, or httpx, would cost each
command more than the call itself; bench/bench_import_costs.py measures both).
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from http import HTTPStatus
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel

from thoughtforge.catalogue import RunAnswer
from thoughtforge.config import Config
from thoughtforge.core.project import Project
from thoughtforge.core.run_lock import is_running
from thoughtforge.core.waiting import Waiting, current_wait
from thoughtforge.errors import ServiceError, ThoughtForgeError

PROJECT_TAG_PREFIX = "project:"
HEALTH_TIMEOUT_SECONDS = 0.5
BUSY_WAIT_SECONDS = 30.0
"""How long a command waits for a server that is there but too busy to answer its health check
(twenty runs starting at once), before it says no server answers."""
REQUEST_TIMEOUT_SECONDS = 10.0
SCHEMA_WAIT_SECONDS = 30.0
SETTLE_SECONDS = 10.0
_POLL_SECONDS = 0.1
_BUSY_POLL_SECONDS = 0.5
FORM_NOT_SAVED = "Run input schema not found."
"""Prefect's refusal of a resume that came before the paused run saved its form's schema."""
_RETRIED = frozenset({429, 502, 503})
_RETRY_DELAYS = (0.5, 1.0, 2.0)
T = TypeVar("T")


def project_tag(project_id: str) -> str:
    """Every flow run of a project carries this tag, so the CLI can find it."""
    return f"{PROJECT_TAG_PREFIX}{project_id}"


def configured_url(config: Config) -> str:
    """The API of the server `thoughtforge up` starts, from `server.host`/`server.port`."""
    return f"http://{config.server.host}:{config.server.port}/api"


def find_api(
    config: Config,
    *,
    busy_wait: float = BUSY_WAIT_SECONDS,
    on_busy: Callable[[str], None] | None = None,
) -> str | None:
    """`PREFECT_API_URL` when set, else the configured server when it answers, else None. A
    server that is there but busy is waited for up to `busy_wait` seconds (`on_busy` told once,
    with its URL); nothing listening is None at once."""
    explicit = os.environ.get("PREFECT_API_URL")
    if explicit:
        return explicit
    url = configured_url(config)
    deadline = time.monotonic() + busy_wait
    while (state := server_state(url)) == "busy" and time.monotonic() < deadline:
        if on_busy is not None:
            on_busy(url)
            on_busy = None  # said once
        time.sleep(_BUSY_POLL_SECONDS)
    return url if state == "up" else None


def api_for_project(config: Config, project_dir: Path) -> str | None:
    """Where an answer to the project goes: the server its waiting run recorded (a temporary
    server's port is known only from there), else `find_api`."""
    return api_for_wait(config, current_wait(project_dir))


def api_for_wait(config: Config, waiting: Waiting | None) -> str | None:
    """`api_for_project` for a wait already read."""
    if waiting and waiting.api_url and is_healthy(waiting.api_url):
        return waiting.api_url
    return find_api(config)


def ask_prefect(
    config: Config,
    question: Callable[[PrefectApi], T],
    otherwise: T,
    project_dir: Path | None = None,
) -> T:
    """`question` put to the Prefect API when one answers; `otherwise` when none runs or the call
    fails: for what Prefect can only add to (a busy run's name, a claimed run's end, a link),
    never for what must reach a run (a hand-over reports its failure). With `project_dir`, the
    server its waiting run recorded is asked first (`api_for_project`)."""
    url = find_api(config) if project_dir is None else api_for_project(config, project_dir)
    if url is None:
        return otherwise
    try:
        return question(PrefectApi(url))
    except PrefectApiError:
        return otherwise


def is_healthy(url: str, timeout: float = HEALTH_TIMEOUT_SECONDS) -> bool:
    """Whether a Prefect API answers its health check at `url`."""
    return server_state(url, timeout) == "up"


def server_state(
    url: str, timeout: float = HEALTH_TIMEOUT_SECONDS
) -> Literal["up", "busy", "down"]:
    """`up` when the health check answers, `busy` when something listens but does not answer in
    time (or answers 429/5xx), `down` when nothing listens there."""
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=timeout) as response:
            return "up" if response.status == 200 else "busy"
    except urllib.error.HTTPError as exc:
        return "busy" if exc.code == 429 or exc.code >= 500 else "down"
    except urllib.error.URLError as exc:
        return "busy" if isinstance(exc.reason, TimeoutError) else "down"
    except TimeoutError:
        return "busy"
    except (OSError, ValueError):
        return "down"


class PrefectApiError(ServiceError):
    """The Prefect API could not be reached, or answered with an error (`status`)."""


class AnsweredMeanwhile(ThoughtForgeError):
    """The waiting run took another answer (the page's, the CLI's, the UI's) a moment before this
    one reached it: Prefect refuses a second input (HTTP 409), or the run is no longer paused."""

    def __init__(self, run_name: str) -> None:
        super().__init__(f"another answer reached the waiting run {run_name} first")


class WaitingRun(BaseModel):
    """A paused or suspended flow run, and the keys of the input it waits for."""

    id: str
    name: str
    state_name: str
    schema_key: str | None

    @property
    def suspended(self) -> bool:
        """Suspended (a deployment's run, no process) rather than paused (a live process)."""
        return self.state_name == "Suspended"


class RunSummary(BaseModel):
    """A flow run as the workbench links to it."""

    id: str
    name: str
    state_name: str


class PrefectApi:
    """The calls an answer makes, each one request (no connection is kept between commands)."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")

    def waiting_run(self, project_id: str, flow_run_id: str | None = None) -> WaitingRun | None:
        """The newest paused or suspended flow run tagged with the project; with `flow_run_id`,
        that run only, if it waits."""
        runs_filter: dict[str, Any] = {
            "tags": {"all_": [project_tag(project_id)]},
            "state": {"type": {"any_": ["PAUSED"]}},
        }
        if flow_run_id is not None:
            runs_filter["id"] = {"any_": [flow_run_id]}
        body = {"flow_runs": runs_filter, "sort": "START_TIME_DESC", "limit": 1}
        runs = self.call("POST", "/flow_runs/filter", body)
        if not runs:
            return None
        state = runs[0].get("state") or {}
        keyset = (state.get("state_details") or {}).get("run_input_keyset") or {}
        return WaitingRun(
            id=runs[0]["id"],
            name=runs[0]["name"],
            state_name=state.get("name", "Paused"),
            schema_key=keyset.get("schema"),
        )

    def latest_run(self, project_id: str) -> RunSummary | None:
        """The project's newest flow run, whatever its state."""
        body = {
            "flow_runs": {"tags": {"all_": [project_tag(project_id)]}},
            "sort": "EXPECTED_START_TIME_DESC",
            "limit": 1,
        }
        runs = self.call("POST", "/flow_runs/filter", body)
        if not runs:
            return None
        state = (runs[0].get("state") or {}).get("name") or "unknown"
        return RunSummary(id=runs[0]["id"], name=runs[0]["name"], state_name=state)

    def run_deployment(
        self, deployment: str, parameters: dict[str, Any], tags: list[str] | None = None
    ) -> RunSummary:
        """Start a run of `flow/deployment`, as `prefect deployment run` does, with `tags` beside
        the deployment's (a project's tag from the first moment, so `busy_run` sees it while
        it is still scheduled); a missing deployment is a `PrefectApiError` with status 404."""
        found = self.call("GET", f"/deployments/name/{deployment}")
        body: dict[str, Any] = {"parameters": parameters}
        if tags:
            body["tags"] = sorted({*found.get("tags", []), *tags})
        run = self.call("POST", f"/deployments/{found['id']}/create_flow_run", body)
        return RunSummary(id=run["id"], name=run["name"], state_name="Scheduled")

    def busy_run(self, project: Project) -> str | None:
        """The name of a run of the project that will wait for the human again soon: one that is
        scheduled or starting (a resumed run re-entering), or working with the project's run lock
        held. A run that Prefect still calls running but that holds no lock has either not taken
        the lock yet or died (kill -9): `active_run` names it, this does not."""
        for run in self._active_runs(project):
            state = (run.get("state") or {}).get("type")
            if state != "RUNNING" or is_running(project):
                return str(run["name"])
        return None

    def active_run(self, project: Project) -> str | None:
        """The name of a run of the project Prefect calls scheduled, starting or running, with
        the project's lock or without: one that may be on its way to its next wait, which
        `next_waiting_run` gives `SETTLE_SECONDS` to show itself."""
        runs = self._active_runs(project)
        return str(runs[0]["name"]) if runs else None

    def _active_runs(self, project: Project) -> list[dict[str, Any]]:
        body = {
            "flow_runs": {
                "tags": {"all_": [project_tag(project.id)]},
                "state": {"type": {"any_": ["SCHEDULED", "PENDING", "RUNNING"]}},
            },
            "sort": "START_TIME_DESC",
            "limit": 5,
        }
        return list(self.call("POST", "/flow_runs/filter", body))

    def next_waiting_run(self, project: Project, seconds: float) -> WaitingRun | None:
        """The project's waiting run, giving a busy run `seconds` to reach its next wait.

        A run seen busy may look idle for a moment on its way (running, before it takes the run
        lock): only `SETTLE_SECONDS` of neither busy nor waiting mean it will not ask again.
        """
        deadline = time.monotonic() + seconds
        idle_since: float | None = None
        while (run := self.live_waiting_run(project)) is None:
            now = time.monotonic()
            if self.busy_run(project) is not None:
                idle_since = None
            elif idle_since is None:
                idle_since = now
            if now > deadline or (idle_since is not None and now - idle_since > SETTLE_SECONDS):
                return None
            time.sleep(_BUSY_POLL_SECONDS)
        return run

    def live_waiting_run(self, project: Project) -> WaitingRun | None:
        """The project's waiting run, if anyone will act on an answer: a suspended run is
        restarted by its worker, a paused one only by its own process, which may have died.
        It is the run that recorded the wait: another run of the project left paused by a killed
        process (and still marked so) must never take an answer meant for the live one."""
        waiting = current_wait(project.dir)
        run = self.waiting_run(project.id, waiting.flow_run_id if waiting else None)
        if run is None or run.suspended or is_running(project):
            return run
        return None

    def resume(self, run: WaitingRun, answer: RunAnswer) -> None:
        """Hand `answer` to the waiting run; Prefect checks it against the form's schema.

        A run is marked paused a moment before it saves its form's schema, and Prefect rejects a
        resume in between, so this waits for the schema first.
        """
        self._wait_for_schema(run)
        try:
            result = self.call(
                "POST", f"/flow_runs/{run.id}/resume", {"run_input": answer.run_input()}
            )
        except PrefectApiError as exc:
            if exc.status == HTTPStatus.CONFLICT:
                raise AnsweredMeanwhile(run.name) from None
            raise
        if result.get("status") == "ABORT":  # "Cannot resume a flow run that is not paused."
            raise AnsweredMeanwhile(run.name)
        reason = (result.get("details") or {}).get("reason") or result.get("status")
        if reason == FORM_NOT_SAVED:  # resumed by id, a moment before the run saved its form
            raise PrefectApiError(f"flow run {run.name}: {reason}")
        if result.get("status") != "ACCEPT":
            raise ThoughtForgeError(f"the waiting run {run.name} refused the input: {reason}")

    def cancel_runs(self, flow_run_ids: list[str], message: str) -> list[str]:
        """Mark those of the flow runs that are running, pending or crashed (as a killed run says
        it is) cancelled, forced; their names. A suspended run is left to its answer."""
        if not flow_run_ids:
            return []
        body = {
            "flow_runs": {
                "id": {"any_": flow_run_ids},
                "state": {"type": {"any_": ["RUNNING", "PENDING", "CRASHED"]}},
            }
        }
        runs = self.call("POST", "/flow_runs/filter", body) or []
        state = {"type": "CANCELLED", "name": "Cancelled", "message": message}
        for run in runs:
            self.call("POST", f"/flow_runs/{run['id']}/set_state", {"state": state, "force": True})
        return [run["name"] for run in runs]

    def state_of(self, flow_run_id: str) -> str:
        """The type of the flow run's state (`RUNNING`, `CANCELLED`, …)."""
        return str(self.call("GET", f"/flow_runs/{flow_run_id}")["state"]["type"])

    def answered(self, flow_run_id: str, pause_key: str) -> bool:
        """Whether the run's pause under `pause_key` (a run that paused holding its process) has
        been given its answer: Prefect keeps the input under the pause's response key."""
        try:
            self.call("GET", f"/flow_runs/{flow_run_id}/input/paused-{pause_key}-response")
        except PrefectApiError as exc:
            if exc.status == HTTPStatus.NOT_FOUND:
                return False
            raise
        return True

    def form_published(self, run: WaitingRun) -> bool:
        """Whether the run has saved the schema of the form it waits for (a resume, from the CLI
        or the UI's Resume button, is refused until it has)."""
        if not run.schema_key:
            return True
        try:
            self.call("GET", f"/flow_runs/{run.id}/input/{run.schema_key}")
        except PrefectApiError as exc:
            if exc.status == 404:
                return False
            raise
        return True

    def _wait_for_schema(self, run: WaitingRun) -> None:
        deadline = time.monotonic() + SCHEMA_WAIT_SECONDS
        while not self.form_published(run):
            if time.monotonic() > deadline:
                raise ThoughtForgeError(
                    f"flow run {run.name} waits but never published its input form"
                )
            time.sleep(_POLL_SECONDS)

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            f"{self.url}{path}",
            data=data,
            method=method,
            headers={"Content-Type": "application/json"},
        )
        for delay in (*_RETRY_DELAYS, None):
            try:
                with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT_SECONDS) as response:
                    return json.loads(response.read() or b"null")
            except urllib.error.HTTPError as exc:
                if exc.code in _RETRIED and delay is not None:
                    time.sleep(delay)  # a busy server (SQLite locked) answers 503: as Prefect's
                    continue  # own client does, try again a little later
                raise PrefectApiError(
                    f"{method} {path}: HTTP {exc.code}", status=exc.code
                ) from None
            except (OSError, ValueError) as exc:
                raise PrefectApiError(f"{method} {path}: {exc}") from None
        raise AssertionError("unreachable: the last attempt returns or raises")
