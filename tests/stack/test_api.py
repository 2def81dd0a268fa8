"""Finding the Prefect API without importing Prefect."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer, ThreadingHTTPServer
from pathlib import Path

import pytest

from thoughtforge.config import Config
from thoughtforge.core.project import Project
from thoughtforge.core.state import utc_now
from thoughtforge.core.waiting import Waiting, record_wait
from thoughtforge.models import Phase
from thoughtforge.stack import api as api_module
from thoughtforge.stack.api import (
    PrefectApi,
    WaitingRun,
    api_for_project,
    ask_prefect,
    configured_url,
    find_api,
    is_healthy,
)

CLOSED = "http://127.0.0.1:9/api"


def test_an_explicit_api_url_wins_and_a_silent_server_is_not_used(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PREFECT_API_URL", "http://example.invalid/api")
    assert find_api(config) == "http://example.invalid/api"
    monkeypatch.delenv("PREFECT_API_URL")
    silent = config.model_copy(update={"server": config.server.model_copy(update={"port": 9})})
    assert configured_url(silent) == CLOSED
    assert not is_healthy(CLOSED)
    assert find_api(silent) is None


@pytest.fixture
def healthy_url() -> Iterator[str]:
    """A real HTTP server that answers Prefect's health check, as a temporary server would."""

    class Health(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200 if self.path == "/api/health" else 404)
            self.end_headers()
            self.wfile.write(b"true")

        def log_message(self, *args: object) -> None:
            return None

    server = HTTPServer(("127.0.0.1", 0), Health)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/api"
    server.shutdown()


def test_a_reply_goes_to_the_server_the_wait_recorded_while_it_answers(
    config: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, healthy_url: str
) -> None:
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    waiting = Waiting(
        key="k", kind="IntakeTurn", phase=Phase.BRAIN_DUMP, chat_length=0, since=utc_now()
    )
    record_wait(tmp_path, waiting.model_copy(update={"api_url": CLOSED}))
    dead_record_falls_back = api_for_project(config, tmp_path)
    assert dead_record_falls_back == find_api(config)  # the configured server, if it answers
    assert is_healthy(healthy_url)
    record_wait(tmp_path, waiting.model_copy(update={"api_url": healthy_url}))
    assert api_for_project(config, tmp_path) == healthy_url


class ScriptedRuns(PrefectApi):
    """The API as a CLI action sees it while a resumed run re-enters: a script of what each poll
    finds (`busy`, `idle`: neither busy nor waiting, `waiting`), the last repeating."""

    def __init__(self, polls: list[str]) -> None:
        super().__init__("http://127.0.0.1:9/api")
        self.polls = polls
        self.seen = 0

    def live_waiting_run(self, project: Project) -> WaitingRun | None:
        now = self.polls[min(self.seen, len(self.polls) - 1)]
        self.seen += 1
        return (
            WaitingRun(id="r", name="run", state_name="Suspended", schema_key=None)
            if now == "waiting"
            else None
        )

    def busy_run(self, project: Project) -> str | None:
        return "run" if self.polls[min(self.seen - 1, len(self.polls) - 1)] == "busy" else None


@pytest.fixture
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(api_module, "_BUSY_POLL_SECONDS", 0.001)
    monkeypatch.setattr(api_module, "SETTLE_SECONDS", 0.2)


def test_a_run_that_looks_idle_on_its_way_to_the_next_wait_is_still_waited_for(
    quick: None, tmp_path: Path
) -> None:
    """Before, `distill` right after `say` failed when a poll fell between the run's start and
    its taking the run lock."""
    api = ScriptedRuns(["busy", "idle", "idle", "busy", "waiting"])
    run = api.next_waiting_run(Project(id="p", dir=tmp_path), seconds=30)
    assert run is not None and run.name == "run"


def test_a_run_that_stays_neither_busy_nor_waiting_is_given_up_after_it_settles(
    quick: None, tmp_path: Path
) -> None:
    api = ScriptedRuns(["busy", "idle"])
    assert api.next_waiting_run(Project(id="p", dir=tmp_path), seconds=30) is None
    assert api.seen > 3, "it kept looking for a while before giving up"


def test_ask_prefect_answers_from_the_server_else_falls_back_never_raising(
    config: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, healthy_url: str
) -> None:
    """The one "find the API, try, fall back" path: Prefect adds to what the files say, and a
    missing or failing server leaves the fallback standing."""
    asked: list[str] = []

    def health(api: PrefectApi) -> str:
        asked.append(api.url)
        return str(api.call("GET", "/health"))

    monkeypatch.setenv("PREFECT_API_URL", CLOSED)  # set, but nothing listens there
    assert ask_prefect(config, health, "fallback") == "fallback"
    monkeypatch.setenv("PREFECT_API_URL", healthy_url)
    assert ask_prefect(config, health, "fallback") == "True"
    monkeypatch.delenv("PREFECT_API_URL")
    silent = config.model_copy(update={"server": config.server.model_copy(update={"port": 9})})
    assert ask_prefect(silent, health, "fallback") == "fallback"  # no server: never asked
    waiting = Waiting(
        key="k", kind="IntakeTurn", phase=Phase.BRAIN_DUMP, chat_length=0, since=utc_now()
    )
    record_wait(tmp_path, waiting.model_copy(update={"api_url": healthy_url}))
    assert ask_prefect(silent, health, "fallback", tmp_path) == "True"  # the wait's server
    assert asked == [CLOSED, healthy_url, healthy_url]


def test_a_busy_server_is_waited_for_and_nothing_listening_is_no_server_at_once(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Twenty starts at once: the server was up but slower than the health check's 0.5 s, and
    some starts were refused "no Prefect server answers"."""
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    slow_for = [2]  # the first two checks time out, then it answers

    class Busy(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if slow_for[0] > 0:
                slow_for[0] -= 1
                time.sleep(api_module.HEALTH_TIMEOUT_SECONDS * 2)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"true")

        def log_message(self, *args: object) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Busy)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        port = server.server_port
        busy = config.model_copy(update={"server": config.server.model_copy(update={"port": port})})
        told: list[str] = []
        assert find_api(busy, on_busy=told.append) == configured_url(busy)
        assert told == [configured_url(busy)]  # said once, while it waited
        slow_for[0] = 100
        assert find_api(busy, busy_wait=1.0) is None  # a deadline, then no server
    finally:
        server.shutdown()
    closed = config.model_copy(update={"server": config.server.model_copy(update={"port": 9})})
    started = time.monotonic()
    assert find_api(closed, on_busy=told.append) is None
    assert time.monotonic() - started < 1.0 and len(told) == 1  # refused: not waited for
