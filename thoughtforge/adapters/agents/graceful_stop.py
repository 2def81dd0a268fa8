"""Graceful shutdown: told to stop (SIGTERM or SIGINT), a run takes no new step, lets the agent
call in flight finish, then stops.

While a call is in flight the first signal is only noted; the call's own timeout
(`agents.call_timeout_seconds`) bounds the wait. A call that completes is recorded as usual (every
step writes its files once it has its reply: a finished fix writes its iteration), and the run
stops at its next step, the next agent call or polish iteration, exactly as the signal would have
stopped it: the handler that was there before is called then. With no call in flight, a second
signal, or a run its orchestrator is cancelling (`stop_now`), it stops at once, and the call in
flight is killed with its process group, as `kill -9` recovery expects. Plain Python: the flows
install it around a run; signal handlers exist only in the main thread, elsewhere it does nothing.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

SIGNALS = (signal.SIGTERM, signal.SIGINT)


class _Stop:
    """The process's one graceful stop (signal handlers are per process too)."""

    def __init__(self) -> None:
        self.previous: dict[int, Any] = {}
        self.in_flight = 0
        self.pending: int | None = None
        self.seconds = 0.0
        self.stop_now: Callable[[], bool] = lambda: False


_stop = _Stop()


@contextmanager
def graceful_stop(seconds: float, stop_now: Callable[[], bool] = lambda: False) -> Iterator[None]:
    """Stop gracefully while inside; `seconds` is how long a call may still take (its timeout),
    `stop_now` says whether a signal must stop at once whatever is in flight."""
    if threading.current_thread() is not threading.main_thread() or _stop.previous:
        yield
        return
    _stop.seconds, _stop.stop_now, _stop.pending = seconds, stop_now, None
    for signum in SIGNALS:
        _stop.previous[signum] = signal.signal(signum, _on_signal)
    try:
        yield
    finally:
        _restore()
        _stop.pending = None


@contextmanager
def agent_call() -> Iterator[None]:
    """Around one agent call: a stop asked for before it starts stops the run here instead."""
    take_next_step()
    _stop.in_flight += 1
    try:
        yield
    finally:
        _stop.in_flight -= 1


def take_next_step() -> None:
    """Before a new step: a stop that waited for the call in flight happens now."""
    if _stop.pending is not None:
        _deliver(_stop.pending, None)


def stop_pending() -> bool:
    """A stop waits for the next step (a run about to wait for the person suspends instead)."""
    return _stop.pending is not None


def _on_signal(signum: int, frame: FrameType | None) -> None:
    if _stop.pending is not None or _stop.in_flight == 0 or _stop.stop_now():
        _deliver(signum, frame)
        return
    _stop.pending = signum
    _tell(
        f"Stopping: the agent's call in flight may finish (up to {_stop.seconds:g} s) and is "
        "recorded, then the run stops. Signal again to stop now.\n"
    )


def _deliver(signum: int, frame: FrameType | None) -> None:
    """Stop as the signal would have without us: its previous handler, or its default action."""
    previous = _stop.previous.get(signum, signal.SIG_DFL)
    _restore()
    if callable(previous):
        previous(signum, frame)
    elif previous == signal.SIG_DFL:
        signal.raise_signal(signum)


def _restore() -> None:
    for signum, handler in _stop.previous.items():
        signal.signal(signum, handler)
    _stop.previous.clear()


def _tell(text: str) -> None:
    """Straight to stderr: whoever reads it may be gone already (a closed pipe is no failure)."""
    try:
        os.write(2, text.encode())
    except OSError:
        return
