"""`announce_transitions`: what an entry point installs, end to end through the process's courier.

Real files and sockets: the config file on disk, a `CaptureServer` as the channel, the project's
own log. Each test leaves the process's hooks as it found them and the courier drained.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.capture_server import CapturedRequest, CaptureServer, refused_url
from thoughtforge.adapters.announce import announce_transitions
from thoughtforge.adapters.courier import courier
from thoughtforge.config import load_config
from thoughtforge.core.creation import create_project
from thoughtforge.core.hooks import install_hooks, installed_hooks
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import read_events
from thoughtforge.core.transition import transition
from thoughtforge.models import Phase

SECRET_PATH = "/hooks/xoxSecretPart"
DRAIN_SECONDS = 10


@pytest.fixture(autouse=True)
def restore_hooks() -> Iterator[None]:
    previous = installed_hooks()
    yield
    courier.drain(DRAIN_SECONDS)
    install_hooks(previous)


@pytest.fixture
def server() -> Iterator[CaptureServer]:
    with CaptureServer() as server:
        yield server


class ArrivalServer(CaptureServer):
    """A capture server that also tells when a request has reached it."""

    def __init__(self) -> None:
        self.arrived = threading.Event()
        super().__init__()

    def _record(self, request: CapturedRequest) -> Any:
        self.arrived.set()
        return super()._record(request)


def _webhook(url: str, timeout: float = 3) -> dict[str, Any]:
    channel = {"type": "webhook", "url": url + SECRET_PATH}
    return {"enabled": True, "timeout_seconds": timeout, "channels": [channel]}


def _announced(write_config: Callable[..., Path], **sections: Any) -> tuple[Path, Project]:
    """The config written and announced, and a new project (created with the hooks installed)."""
    path = write_config(**sections)
    config = load_config(path)
    announce_transitions(path, config)
    return path, create_project(config)


def _phases(server: CaptureServer) -> list[str]:
    return [r.json()["phase"] for r in server.requests]


@pytest.fixture
def arrival_server() -> Iterator[ArrivalServer]:
    with ArrivalServer() as server:
        yield server


def test_a_transition_returns_before_the_channel_answers(
    write_config: Callable[..., Path], arrival_server: ArrivalServer
) -> None:
    """The channel holds its answer for up to its full timeout: the transition does not wait."""
    server = arrival_server
    _, project = _announced(write_config, notifications=_webhook(server.url, timeout=30))
    server.answer(200, delay=30)  # held until the server closes, below
    status = transition(project, Phase.DISTILLING)
    assert status.phase is Phase.DISTILLING and project.status().phase is Phase.DISTILLING
    assert server.arrived.wait(DRAIN_SECONDS)
    assert courier.drain(0) is False  # the notification still waits for its answer
    server.close()  # releases the held answer
    assert courier.drain(DRAIN_SECONDS)
    assert _phases(server) == ["distilling"]
    assert not [e for e in read_events(project.dir) if e["event"] == "hook_failed"]


def test_each_transition_is_one_webhook_post_in_order(
    write_config: Callable[..., Path], server: CaptureServer
) -> None:
    _, project = _announced(write_config, notifications=_webhook(server.url))
    for phase in (Phase.DISTILLING, Phase.HUMAN_REVIEW, Phase.DISTILLING, Phase.HUMAN_REVIEW):
        transition(project, phase)
    assert courier.drain(DRAIN_SECONDS)
    assert [r.path for r in server.requests] == [SECRET_PATH] * 4
    assert _phases(server) == ["distilling", "human_review", "distilling", "human_review"]
    assert {r.json()["project_id"] for r in server.requests} == {project.id}


def test_a_refused_channel_is_a_hook_failed_warning_without_the_secret_path(
    write_config: Callable[..., Path],
) -> None:
    url = refused_url()
    _, project = _announced(write_config, notifications=_webhook(url))
    transition(project, Phase.DISTILLING)
    assert courier.drain(DRAIN_SECONDS)
    [failed] = [e for e in read_events(project.dir) if e["event"] == "hook_failed"]
    assert failed["level"] == "warning" and failed["hook"] == "notification"
    assert f"webhook {url}/…" in failed["error"] and "refused" in failed["error"].lower()
    assert "xoxSecretPart" not in failed["error"]
    assert project.status().phase is Phase.DISTILLING


def test_an_edit_of_the_config_file_counts_from_the_next_transition(
    write_config: Callable[..., Path], server: CaptureServer
) -> None:
    path, project = _announced(write_config, notifications=_webhook(server.url))
    transition(project, Phase.DISTILLING)
    assert courier.drain(DRAIN_SECONDS)

    _edit(path, lambda data: data["notifications"].update(enabled=False))
    transition(project, Phase.HUMAN_REVIEW)
    assert courier.drain(DRAIN_SECONDS)
    assert _phases(server) == ["distilling"]

    _edit(path, lambda data: data["notifications"].update(enabled=True))
    transition(project, Phase.DISTILLING)
    assert courier.drain(DRAIN_SECONDS)
    assert _phases(server) == ["distilling", "distilling"]


def test_a_config_file_that_stops_validating_keeps_the_last_good_settings(
    write_config: Callable[..., Path], server: CaptureServer
) -> None:
    path, project = _announced(write_config, notifications=_webhook(server.url))
    path.write_text(path.read_text() + "\nnotifications: [unclosed\n")
    transition(project, Phase.DISTILLING)
    assert courier.drain(DRAIN_SECONDS)
    assert _phases(server) == ["distilling"]


def _edit(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    """Rewrite the config file as a user would; `enabled: true` and `false` differ in size, so
    the change is seen however coarse the file system's clock is."""
    data = yaml.safe_load(path.read_text())
    change(data)
    path.write_text(yaml.safe_dump(data))


class CountingServer(CaptureServer):
    """A capture server that tells when it has received `expected` requests."""

    def __init__(self, expected: int) -> None:
        self.expected = expected
        self.all_arrived = threading.Event()
        super().__init__()

    def _record(self, request: CapturedRequest) -> Any:
        reply = super()._record(request)
        if len(self.requests) >= self.expected:
            self.all_arrived.set()
        return reply


def test_a_channel_that_holds_its_answer_never_delays_the_next_channel(
    write_config: Callable[..., Path], arrival_server: ArrivalServer
) -> None:
    """Before, one thread made every call in turn: the healthy channel after a trickling webhook
    got 0 of 6 notifications, and all were dropped at exit (`hook_dropped`)."""
    slow = arrival_server
    slow.answer(200, delay=30)  # held until the server closes, below
    with CountingServer(expected=6) as healthy:
        channels = [
            {"type": "webhook", "url": slow.url + SECRET_PATH},
            {"type": "webhook", "url": healthy.url + SECRET_PATH},
        ]
        notifications = {"enabled": True, "timeout_seconds": 30, "channels": channels}
        _, project = _announced(write_config, notifications=notifications)
        for phase in [Phase.DISTILLING, Phase.HUMAN_REVIEW] * 3:
            transition(project, phase)
        assert healthy.all_arrived.wait(DRAIN_SECONDS)
        assert slow.arrived.is_set() and courier.drain(0) is False, "the slow one still holds"
        assert _phases(healthy) == ["distilling", "human_review"] * 3
    slow.close()
    assert courier.drain(DRAIN_SECONDS)
