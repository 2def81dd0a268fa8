"""The config re-read when its file changes, for the settings read at each use."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from thoughtforge.config.loading import load_config
from thoughtforge.config.model import Config
from thoughtforge.errors import ConfigError

_logger = logging.getLogger("thoughtforge")


class LiveConfig:
    """The config as the file says now, for settings read at each use (`vibekanban.enabled`,
    the channels): switching the board or a channel on or off needs no restart.

    The file is re-read only when its modification time or size changed. A file that goes
    missing or stops validating keeps the last good config; the reason is kept in `problem` and
    logged once as a warning.
    """

    def __init__(self, path: Path, config: Config) -> None:
        self.path = path
        self.problem: str | None = None
        self._config = config
        self._stamp = self._stat()
        self._lock = threading.Lock()

    def current(self) -> Config:
        """Safe from several threads (the courier's lanes): none sees the new stamp with the
        old settings."""
        with self._lock:
            stamp = self._stat()
            if stamp != self._stamp:
                self._stamp = stamp
                if stamp is None:  # gone, perhaps for a moment: never recreated from the example
                    self._report(f"{self.path} is missing; using the settings it last held")
                    return self._config
                try:
                    self._config = load_config(self.path, announce=lambda message: None)
                    self.problem = None
                except ConfigError as exc:
                    self._report(f"{exc}\nUsing the settings it last held.")
            return self._config

    def _report(self, problem: str) -> None:
        self.problem = problem
        _logger.warning("%s", problem)

    def _stat(self) -> tuple[int, int] | None:
        try:
            info = self.path.stat()
        except OSError:
            return None
        return info.st_mtime_ns, info.st_size
