"""The courier: the one background thread that makes the board and channel calls.

Each test has a `Courier` of its own; a held call waits on an `Event` the test sets, never on
the clock, and always with a bound so a broken courier fails the test instead of hanging it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from thoughtforge.adapters.courier import Courier
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import read_events

HOLD_SECONDS = 10
"""The longest a held call waits for its release: only reached when the courier is broken."""


@pytest.fixture
def project(tmp_path: Path) -> Project:
    """Where the courier logs a failure: only the folder is needed."""
    return Project(id="wedding-plan-1", dir=tmp_path)


@pytest.fixture
def courier() -> Iterator[Courier]:
    courier = Courier()
    yield courier
    courier.drain(HOLD_SECONDS)


class Held:
    """A call that blocks on the courier's thread until `release()`."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.finished = threading.Event()
        self._release = threading.Event()
        self.was_released = False
        self.thread: threading.Thread | None = None

    def __call__(self) -> None:
        self.thread = threading.current_thread()
        self.started.set()
        self.was_released = self._release.wait(HOLD_SECONDS)
        self.finished.set()

    def release(self) -> None:
        self._release.set()


def _record(calls: list[str], name: str) -> Callable[[], None]:
    return lambda: calls.append(name)


def test_calls_run_in_the_order_they_were_posted(project: Project, courier: Courier) -> None:
    calls: list[str] = []
    names = [f"call {n}" for n in range(20)]
    for name in names:
        courier.post(project, "board", _record(calls, name))
    assert courier.drain(HOLD_SECONDS)
    assert calls == names


def test_post_returns_while_an_earlier_call_is_still_held(
    project: Project, courier: Courier
) -> None:
    """A transition hands its calls over and goes on: it never waits for a service."""
    held = Held()
    calls: list[str] = []
    courier.post(project, "notification", held)
    assert held.started.wait(HOLD_SECONDS)
    courier.post(project, "notification", _record(calls, "after"))  # returns though `held` runs
    assert not held.finished.is_set() and calls == []
    assert held.thread is not threading.current_thread()

    held.release()
    assert courier.drain(HOLD_SECONDS)
    assert held.was_released and calls == ["after"]


def test_a_failing_call_is_one_warning_in_the_project_log_and_the_next_still_runs(
    project: Project, courier: Courier
) -> None:
    def broken() -> None:
        raise RuntimeError("Vibe Kanban refused PUT /api/tasks/7: gone")

    calls: list[str] = []
    courier.post(project, "board", broken)
    courier.post(project, "notification", _record(calls, "after"))
    assert courier.drain(HOLD_SECONDS)
    assert calls == ["after"]
    [failed] = [e for e in read_events(project.dir) if e["event"] == "hook_failed"]
    assert failed["level"] == "warning"
    assert failed["hook"] == "board"
    assert failed["error"] == "Vibe Kanban refused PUT /api/tasks/7: gone"


def test_a_failure_without_a_message_still_names_what_failed(
    project: Project, courier: Courier
) -> None:
    def broken() -> None:
        raise TimeoutError

    courier.post(project, "notification", broken)
    assert courier.drain(HOLD_SECONDS)
    [failed] = [e for e in read_events(project.dir) if e["event"] == "hook_failed"]
    assert "TimeoutError" in failed["error"]


def test_drain_is_false_while_a_call_is_held_and_true_once_it_ends(
    project: Project, courier: Courier
) -> None:
    held = Held()
    courier.post(project, "board", held)
    assert held.started.wait(HOLD_SECONDS)
    assert courier.drain(0.05) is False
    courier.post(project, "board", lambda: None)
    assert courier.drain(0) is False
    held.release()
    assert courier.drain(HOLD_SECONDS) is True
    assert held.was_released


def test_drain_with_nothing_posted_is_true_at_once(courier: Courier) -> None:
    assert courier.drain(0) is True


def test_close_names_in_the_log_what_it_could_not_deliver_in_time(
    project: Project, courier: Courier, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("thoughtforge.adapters.courier.DRAIN_SECONDS", 0.05)
    held, calls = Held(), []
    courier.post(project, "notification", held, lane="ntfy")
    courier.post(project, "notification", _record(calls, "late"), lane="ntfy")
    assert held.started.wait(HOLD_SECONDS)
    courier.close()
    held.release()
    assert courier.drain(HOLD_SECONDS)
    dropped = [e for e in read_events(project.dir) if e["event"] == "hook_dropped"]
    assert [(e["hook"], e["level"]) for e in dropped] == [("notification", "warning")]
    assert calls == []


def test_a_held_lane_never_delays_another(project: Project, courier: Courier) -> None:
    """Before, one thread made every call: a trickling webhook held it for the whole run, the
    healthy channel after it got 0 of 6 notifications, and all 12 were dropped at exit."""
    held = Held()
    delivered = [threading.Event() for _ in range(6)]
    courier.post(project, "notification", held, lane="slow channel")
    assert held.started.wait(HOLD_SECONDS)
    for event in delivered:
        courier.post(project, "notification", event.set, lane="healthy channel")
    assert all(event.wait(HOLD_SECONDS) for event in delivered)
    assert not held.finished.is_set(), "the healthy lane ran while the slow one was held"
    held.release()
    assert courier.drain(HOLD_SECONDS)
