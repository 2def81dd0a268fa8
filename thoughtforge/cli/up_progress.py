"""What `up` says as it goes: a line when each stage begins (the Prefect server, the worker, the
warm starter, the workbench, the deployments), and how long it took when it ends, so no wait is
silent. Kept apart from `up` itself, which only names its stages."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from thoughtforge.cli.app import out


class Stage:
    """One stage of `up`; `done` sets the line that ends it (else "ready")."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.outcome = "ready"

    def done(self, outcome: str) -> None:
        self.outcome = outcome


@contextmanager
def stage(what: str) -> Iterator[Stage]:
    """Say `what…` now, and when the block ends, its outcome and its time."""
    out.print(f"{what}…", soft_wrap=True)
    started = time.monotonic()
    current = Stage(what)
    yield current
    out.print(f"  {current.outcome} ({time.monotonic() - started:.1f} s)", soft_wrap=True)
