"""The Prefect server `up` runs: `prefect server start`, with SQLite transactions that wait for
each other instead of failing.

Prefect begins a SQLite transaction DEFERRED unless its caller locks rows for update. A deferred
transaction that has read, and then writes after another connection wrote, fails at once with
"database is locked": SQLite cannot wait there (its busy timeout does not apply), so the server
answers 503 and Prefect's clients try again about two seconds later (PrefectHQ/prefect#10956).
Measured: a `prefect deployment run` typed just after `up` met the worker's start-up writes and
took 3 s instead of 1, and the UI's Resume form said "Something went wrong".

Here every transaction begins IMMEDIATE, Prefect's own mode for row locks: it takes the write
lock when it begins, so a second writer waits for it (the busy timeout, 60 s) and never fails
halfway. Readers are not held up (the database is in WAL mode), and each transaction lasts
milliseconds. A PostgreSQL database is not touched.

A server started for one command (`temporary_server`) is told that command's pid in
`PARENT_ENV`, and stops when that process ends, however it ends: killed with -9, the command
cannot stop it, and it held its memory until the project's next run.

Run: `python -m thoughtforge.flows.runtime.prefect_server [prefect server start options]`.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from thoughtforge.flows.runtime.prefect_internals import SQLITE_IMMEDIATE, usable
from thoughtforge.stack.temporary_server import PARENT_ENV

_PR_SET_PDEATHSIG = 1

Begin = Callable[..., AbstractAsyncContextManager[Any]]


def immediate(begin_transaction: Begin) -> Begin:
    """Prefect's `begin_transaction`, always in its row-lock (IMMEDIATE) mode."""

    def begin_immediately(
        self: Any, session: Any, with_for_update: bool = False
    ) -> AbstractAsyncContextManager[Any]:
        return begin_transaction(self, session, with_for_update=True)

    return begin_immediately


def _take_the_write_lock_when_transactions_begin() -> None:
    from prefect.server.database.configurations import AioSqliteConfiguration

    # patching Prefect's method is the point (and `Begin` is its type, loosened)
    AioSqliteConfiguration.begin_transaction = immediate(  # type: ignore[method-assign,assignment]
        AioSqliteConfiguration.begin_transaction
    )


def _end_with(parent: int) -> None:
    """SIGTERM this process when `parent` ends (Linux's parent-death signal); exit now if it
    already has, before the signal was asked for."""
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:
        sys.exit(f"the process this server was started for ({parent}) has ended")


def main(argv: list[str]) -> None:
    from prefect.cli import app

    if PARENT_ENV in os.environ:
        _end_with(int(os.environ[PARENT_ENV]))

    if usable(SQLITE_IMMEDIATE):
        _take_the_write_lock_when_transactions_begin()
    sys.argv = ["prefect", "server", "start", *argv]
    app()
    sys.exit()


if __name__ == "__main__":
    main(sys.argv[1:])
