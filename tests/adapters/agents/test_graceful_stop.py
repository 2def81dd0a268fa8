"""Graceful stop with real signals sent to this process: the call in flight is let finish."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from types import FrameType

import pytest

from thoughtforge.adapters.agents.graceful_stop import agent_call, graceful_stop, take_next_step


class StopNow(BaseException):
    """What the handler that was there before does: stop the run."""


def _stop_now(signum: int, frame: FrameType | None) -> None:
    raise StopNow(signum)


@pytest.fixture
def stopping() -> Iterator[None]:
    """SIGTERM's handler is `_stop_now`, as Prefect's or the CLI's would be, during the test."""
    before = signal.signal(signal.SIGTERM, _stop_now)
    try:
        with graceful_stop(30):
            yield
    finally:
        signal.signal(signal.SIGTERM, before)


def test_a_signal_during_a_call_waits_for_the_next_step(
    stopping: None, capfd: pytest.CaptureFixture[str]
) -> None:
    with agent_call():
        os.kill(os.getpid(), signal.SIGTERM)
        finished = True  # the call goes on to its answer
    assert finished
    assert "Stopping: the agent's call in flight may finish (up to 30 s)" in capfd.readouterr().err
    with pytest.raises(StopNow):
        take_next_step()
    assert signal.getsignal(signal.SIGTERM) is _stop_now, "the previous handler is back"


def test_the_next_call_is_never_started(stopping: None) -> None:
    with agent_call():
        os.kill(os.getpid(), signal.SIGTERM)
    started = []
    with pytest.raises(StopNow), agent_call():
        started.append("a call")
    assert started == []


def test_a_second_signal_stops_at_once(stopping: None) -> None:
    with pytest.raises(StopNow), agent_call():
        os.kill(os.getpid(), signal.SIGTERM)
        os.kill(os.getpid(), signal.SIGTERM)
        pytest.fail("the second signal stops the call in flight")


def test_with_no_call_in_flight_a_signal_stops_at_once(stopping: None) -> None:
    with pytest.raises(StopNow):
        os.kill(os.getpid(), signal.SIGTERM)
        pytest.fail("nothing in flight to wait for")


def test_a_cancelled_run_is_not_held_back() -> None:
    before = signal.signal(signal.SIGTERM, _stop_now)
    try:
        with graceful_stop(30, stop_now=lambda: True), pytest.raises(StopNow), agent_call():
            os.kill(os.getpid(), signal.SIGTERM)
            pytest.fail("a cancellation stops the call in flight")
    finally:
        signal.signal(signal.SIGTERM, before)


def test_sigint_is_ctrl_c_as_before_once_the_call_is_done() -> None:
    with graceful_stop(30):
        with agent_call():
            os.kill(os.getpid(), signal.SIGINT)
        with pytest.raises(KeyboardInterrupt):
            take_next_step()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
