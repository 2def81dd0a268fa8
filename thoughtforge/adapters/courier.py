"""Board and notification calls leave the pipeline's path: one background thread makes them.

A phase change must never wait for a slow or dead service, so the installed hooks hand each call
to the courier and return at once. Calls run one at a time in the order given, so a card moves
through its columns in the order the project did. A failure becomes a `hook_failed` warning in
the project's log, as for any hook. At exit, what is still queued gets `DRAIN_SECONDS` to go out;
what does not is named in its project's log (`hook_dropped`), not lost in silence.
"""

from __future__ import annotations

import atexit
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from thoughtforge.core import Project, log_event

DRAIN_SECONDS = 10.0


@dataclass(frozen=True)
class _Delivery:
    project: Project
    hook: str
    call: Callable[[], None]


class Courier:
    def __init__(self) -> None:
        self._queue: deque[_Delivery] = deque()
        self._busy = False
        self._lock = threading.Condition()
        self._thread: threading.Thread | None = None

    def post(self, project: Project, hook: str, call: Callable[[], None]) -> None:
        """Queue `call`; it runs on the courier's thread, after everything queued before it."""
        with self._lock:
            self._queue.append(_Delivery(project, hook, call))
            self._start()
            self._lock.notify_all()

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until everything queued has run; False if `timeout` (default `DRAIN_SECONDS`)
        passed first."""
        deadline = time.monotonic() + (DRAIN_SECONDS if timeout is None else timeout)
        with self._lock:
            while self._queue or self._busy:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(left)
        return True

    def close(self) -> None:
        """Drain; then drop what is left, saying so in each project's log."""
        if self.drain():
            return
        with self._lock:
            dropped = list(self._queue)
            self._queue.clear()
        for delivery in dropped:
            log_event(
                delivery.project.dir,
                "hook_dropped",
                level="warning",
                hook=delivery.hook,
                why=f"not delivered within {DRAIN_SECONDS:g} s of the process's exit",
            )

    def _start(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name="thoughtforge-courier")
            self._thread.daemon = True
            self._thread.start()

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._queue:
                    self._lock.wait()
                delivery = self._queue.popleft()
                self._busy = True
            try:
                delivery.call()
            except Exception as exc:  # noqa: BLE001 - a service's failure never reaches a phase
                log_event(
                    delivery.project.dir,
                    "hook_failed",
                    level="warning",
                    hook=delivery.hook,
                    error=str(exc) or repr(exc),
                )
            finally:
                with self._lock:
                    self._busy = False
                    self._lock.notify_all()


courier = Courier()
"""The process's one courier: every installed hook posts here."""
atexit.register(courier.close)
