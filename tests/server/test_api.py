"""Finding the Prefect API without importing Prefect."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

from thoughtforge.config import Config
from thoughtforge.core import Waiting, record_wait, utc_now
from thoughtforge.models import Phase
from thoughtforge.server.api import api_for_project, configured_url, find_api, is_healthy

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
