"""`build_progress.json`: where Phase 3 stands, as the deliverable type's plugin reports it.

A plugin's builder tells its `ProgressListener` (`phases.plugin_contract`) a `BuildProgress` after
each step; the phase records the latest one here, and the page shows it as it is, whatever the
type: a plugin from `plugins.directory` shows its progress as the built-in ones do.
"""

from __future__ import annotations

import contextvars
import math
import threading
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from thoughtforge.bounded_input import excerpt
from thoughtforge.core.project_log import log_event
from thoughtforge.core.state import BUILD_PROGRESS_FILE, read_state_file, write_state_file


class ProgressItem(BaseModel):
    """One line of the progress: a section, a step; `detail` says how far it is."""

    label: str = Field(max_length=300)
    done: bool
    detail: str = Field("", max_length=300)


class BuildProgress(BaseModel):
    items: list[ProgressItem] = Field(default_factory=list, max_length=500)
    markdown: str = ""
    """The progress as the run's page in Prefect shows it; a table of the items when empty."""

    def as_markdown(self) -> str:
        if self.markdown:
            return self.markdown
        rows = "\n".join(
            f"| {i.label} | {i.detail} | {'yes' if i.done else 'no'} |" for i in self.items
        )
        done = sum(i.done for i in self.items)
        return (
            f"## Build: {done}/{len(self.items)} done\n\n"
            f"| step | detail | done |\n| --- | --- | --- |\n{rows}\n"
        )


REPORT_INTERVAL_SECONDS = 0.5
"""At most two reports a second are written and published; the latest is always kept."""


class ProgressRecorder:
    """The `ProgressListener` a build is given: each report is checked at the contract (a
    plugin's string or broken dict is logged once, never raised: progress never stops a
    build), then recorded for the page and told to `then`, coalesced to one report per
    `interval` (a report arriving sooner waits, replaced by any later one, and is written when
    the interval is up or at `close`)."""

    def __init__(
        self,
        project_dir: Path,
        then: Callable[[BuildProgress], None],
        interval: float = REPORT_INTERVAL_SECONDS,
    ) -> None:
        self.project_dir = project_dir
        self.then = then
        self.interval = interval
        self.refused = 0
        self._pending: BuildProgress | None = None
        self._last = -math.inf
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()

    def __call__(self, progress: object) -> None:
        checked = self._checked(progress)
        if checked is None:
            return
        with self._lock:
            self._pending = checked
            wait = self._last + self.interval - time.monotonic()
            if wait > 0:
                if self._timer is None:
                    context = contextvars.copy_context()  # the run's context, for `then`
                    self._timer = threading.Timer(wait, context.run, (self._flush_from_timer,))
                    self._timer.daemon = True
                    self._timer.start()
                return
            self._flush()

    def close(self) -> None:
        """Write the report still waiting, if any; the build is over."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            self._flush()
        if self.refused:
            log_event(
                self.project_dir, "build_progress_refused", level="warning", reports=self.refused
            )

    def _flush_from_timer(self) -> None:
        with self._lock:
            self._timer = None
            self._flush()

    def _flush(self) -> None:
        progress, self._pending = self._pending, None
        if progress is None:
            return
        self._last = time.monotonic()
        try:
            write_state_file(self.project_dir, BUILD_PROGRESS_FILE, progress)
        except OSError as exc:
            log_event(self.project_dir, "build_progress_unsaved", level="warning", error=str(exc))
        try:
            self.then(progress)
        except Exception as exc:  # noqa: BLE001 - a listener's failure (an artifact not published)
            log_event(
                self.project_dir, "build_progress_unpublished", level="warning",
                error=excerpt(str(exc), 200),
            )  # fmt: skip

    def _checked(self, progress: object) -> BuildProgress | None:
        if isinstance(progress, BuildProgress):
            return progress
        try:
            return BuildProgress.model_validate(progress)
        except ValidationError as exc:
            self.refused += 1
            if self.refused == 1:
                log_event(
                    self.project_dir, "build_progress_refused", level="warning",
                    given=excerpt(progress), why=excerpt(str(exc), 300),
                )  # fmt: skip
            return None


def recorded(project_dir: Path, then: Callable[[BuildProgress], None]) -> ProgressRecorder:
    """A listener that records each report for the page, then tells `then` (see
    `ProgressRecorder`; `close` it when the build is over)."""
    return ProgressRecorder(project_dir, then)


def read_build_progress(project_dir: Path) -> BuildProgress | None:
    """The latest progress reported, None before any; `StateFileError` for an unreadable one."""
    if not (project_dir / BUILD_PROGRESS_FILE).exists():
        return None
    return read_state_file(project_dir, BUILD_PROGRESS_FILE, BuildProgress)
