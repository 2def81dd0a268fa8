"""What a run prints on the terminal that started it.

Prefect logs a full traceback for every task or flow that raises; a halt (a `PhaseHalt` raised in
a task) or a user error would bury ThoughtForge's one clear line under it. So, unless the user
asked for `--debug`, the records keep their message and lose the traceback.
"""

from __future__ import annotations

import logging

_RUN_LOGGERS = ("prefect.flow_runs", "prefect.task_runs")


class _WithoutTraceback(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.exc_info = None
        record.exc_text = None
        return True


def hide_tracebacks() -> None:
    """Install the filter on Prefect's run loggers, once per process."""
    for name in _RUN_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, _WithoutTraceback) for f in logger.filters):
            logger.addFilter(_WithoutTraceback())
