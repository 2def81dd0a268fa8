"""Whether a process is still there, for tests that check nothing outlives a kill."""

from __future__ import annotations

import os
import time
from pathlib import Path


def alive(pid: int) -> bool:
    """True while the process exists and is not a zombie waiting to be reaped."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")
    return status.exists() and "State:\tZ" not in status.read_text()


def ends_within(pid: int, seconds: float = 5.0) -> bool:
    """Whether the process is gone within `seconds`: a SIGKILL is delivered at once, but a
    loaded machine may take a moment to tear the process down."""
    deadline = time.monotonic() + seconds
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True
