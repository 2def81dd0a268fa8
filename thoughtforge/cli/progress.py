"""What a command says while it waits: a line when a stage begins (`up`'s server, worker, warm
starter, workbench and deployments; `run`'s temporary server and Prefect's start), a line every
`STILL_EVERY` seconds while it lasts, and how long it took when it ends, so no wait is silent.
Kept apart from the commands, which only name their stages."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console

from thoughtforge.cli.app import out

STILL_EVERY = 10.0
"""Seconds between the lines that say a stage is still under way."""


class Stage:
    """One stage; `done` sets the line that ends it (else "ready")."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.outcome = "ready"

    def done(self, outcome: str) -> None:
        self.outcome = outcome


@contextmanager
def stage(what: str, console: Console = out, *, still: str = "") -> Iterator[Stage]:
    """Say `what…` now, `still (N s)` while it lasts, and when the block ends, its outcome and
    its time. `still`: what to say meanwhile (default: "still waiting")."""
    console.print(f"{what}…", soft_wrap=True)
    started = time.monotonic()
    ended = threading.Event()

    def remind() -> None:
        while not ended.wait(STILL_EVERY):
            waited = time.monotonic() - started
            console.print(f"  {still or 'still waiting'} ({waited:.0f} s)", soft_wrap=True)

    reminder = threading.Thread(target=remind, name="stage-reminder", daemon=True)
    reminder.start()
    current = Stage(what)
    try:
        yield current
    finally:
        ended.set()
        reminder.join()
    console.print(f"  {current.outcome} ({time.monotonic() - started:.1f} s)", soft_wrap=True)
