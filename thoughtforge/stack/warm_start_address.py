"""Where the warm starter (`flows.runtime.warm_start`) listens, and whether it does: what `up` and a
worker's launchers share, with nothing of the flows or of Prefect imported to know it."""

from __future__ import annotations

import hashlib
from pathlib import Path

WARM_START_ENV = "THOUGHTFORGE_WARM_START"
"""The starter a worker's launchers connect to, set in the worker's environment."""


def socket_name(key: str) -> str:
    """The starter's address for one set-up (`key`: its state folder), without a file to leave."""
    return f"thoughtforge-warm-start-{hashlib.sha256(key.encode()).hexdigest()[:16]}"


def listening(name: str, pid: int) -> bool:
    """Whether the starter `pid` has imported the flows and takes runs: it binds `name` only
    then. Read from the kernel's socket table, so no launcher's connection is spent on asking,
    and the socket must be that process's own (anyone can bind a name)."""
    try:
        table = Path("/proc/net/unix").read_text().splitlines()
        held = {str(fd.readlink()) for fd in Path(f"/proc/{pid}/fd").iterdir()}
    except OSError:
        return False
    bound = {f"socket:[{line.split()[6]}]" for line in table if line.endswith(f" @{name}")}
    return not bound.isdisjoint(held)
