"""What a run prints on the terminal that started it.

Prefect logs a full traceback for every task or flow that raises; a halt (a `PhaseHalt` raised in
a task) or a user error would bury ThoughtForge's one clear line under it. So, unless the user
asked for `--debug`, the records keep their message and lose the traceback.

A run prints what agents wrote (the AI's latest message, the project's name), so every record of
a run is made inert first (`terminal_text`): an escape sequence in a name never reaches a
terminal, or the UI, as one.
"""

from __future__ import annotations

import logging

from thoughtforge.terminal_text import inert

_RUN_LOGGERS = ("prefect.flow_runs", "prefect.task_runs")


class _WithoutTraceback(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.exc_info = None
        record.exc_text = None
        return True


class _Inert(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = inert(record.getMessage())
        record.args = ()
        return True


def hide_tracebacks() -> None:
    """Install the filter on Prefect's run loggers, once per process."""
    _install(_WithoutTraceback)


def make_run_output_inert() -> None:
    """Every run record's message made inert, once per process (the CLI's and a worker's)."""
    _install(_Inert)


def _install(kind: type[logging.Filter]) -> None:
    for name in _RUN_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, kind) for f in logger.filters):
            logger.addFilter(kind())
