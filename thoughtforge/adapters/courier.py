"""Board and notification calls leave the pipeline's path: background threads make them.

A phase change must never wait for a slow or dead service, so the installed hooks hand each call
to the courier and return at once. Each service has a lane of its own (the board, each
notification channel): its calls run one at a time in the order given, so a card moves through
its columns in the order the project did, and a slow service delays only its own lane, never
another channel. A failure becomes a `hook_failed` warning in the project's log, as for any
hook. At exit, what is still queued gets `DRAIN_SECONDS` to go out; what does not is named in
its project's log (`hook_dropped`), not lost in silence.
"""

from __future__ import annotations

import atexit
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from thoughtforge.core.project import Project
from thoughtforge.core.project_log import log_event

DRAIN_SECONDS = 10.0


@dataclass(frozen=True)
class _Delivery:
    project: Project
    hook: str
    call: Callable[[], None]


class Courier:
    def __init__(self) -> None:
        self._lanes: dict[str, deque[_Delivery]] = {}
        self._busy: set[str] = set()
        self._threads: dict[str, threading.Thread] = {}
        self._lock = threading.Condition()

    def post(
        self, project: Project, hook: str, call: Callable[[], None], lane: str | None = None
    ) -> None:
        """Queue `call` on `lane` (the hook's own, unless named): it runs on that lane's thread,
        after everything queued there before it."""
        lane = lane or hook
        with self._lock:
            self._lanes.setdefault(lane, deque()).append(_Delivery(project, hook, call))
            self._start(lane)
            self._lock.notify_all()

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until everything queued has run; False if `timeout` (default `DRAIN_SECONDS`)
        passed first."""
        deadline = time.monotonic() + (DRAIN_SECONDS if timeout is None else timeout)
        with self._lock:
            while self._busy or any(self._lanes.values()):
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
            dropped = [delivery for queue in self._lanes.values() for delivery in queue]
            for queue in self._lanes.values():
                queue.clear()
        for delivery in dropped:
            log_event(
                delivery.project.dir,
                "hook_dropped",
                level="warning",
                hook=delivery.hook,
                why=f"not delivered within {DRAIN_SECONDS:g} s of the process's exit",
            )

    def _start(self, lane: str) -> None:
        thread = self._threads.get(lane)
        if thread is None or not thread.is_alive():
            thread = threading.Thread(
                target=self._run, args=(lane,), name=f"thoughtforge-courier {lane}", daemon=True
            )
            self._threads[lane] = thread
            thread.start()

    def _run(self, lane: str) -> None:
        queue = self._lanes[lane]
        while True:
            with self._lock:
                while not queue:
                    self._lock.wait()
                delivery = queue.popleft()
                self._busy.add(lane)
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
                    self._busy.discard(lane)
                    self._lock.notify_all()


courier = Courier()
"""The process's one courier: every installed hook posts here."""
atexit.register(courier.close)
