"""Whether a process is still there, for tests that check nothing outlives a kill."""

from __future__ import annotations

import os
from pathlib import Path


def alive(pid: int) -> bool:
    """True while the process exists and is not a zombie waiting to be reaped."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")
    return status.exists() and "State:\tZ" not in status.read_text()
