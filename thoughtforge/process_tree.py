"""The processes below a process, and those that carry a value in their environment, read from
/proc: how a run's leftovers (`core.processes`) and an agent call's tree (`adapters.agents.
supervisor`, which starts before every call and imports nothing else of the package) are found.
Off Linux there is no /proc, and both come back empty."""

from __future__ import annotations

from pathlib import Path

PROC = Path("/proc")


def descendants(roots: list[int]) -> list[int]:
    """Every live process below `roots` (by parent pid), zombies included."""
    children: dict[int, list[int]] = {}
    for pid, parent in _parents().items():
        children.setdefault(parent, []).append(pid)
    found: list[int] = []
    queue = list(roots)
    while queue:
        for child in children.get(queue.pop(), []):
            found.append(child)
            queue.append(child)
    return found


def carrying(variable: str, value: str) -> list[int]:
    """The processes (of this user: others' environments cannot be read) whose environment sets
    `variable` to `value` as they started: what they inherited survives their parent's death,
    a new session and a double fork."""
    wanted = f"{variable}={value}".encode()
    found = []
    for entry in _entries():
        try:
            environment = (entry / "environ").read_bytes()
        except OSError:
            continue
        if wanted in environment.split(b"\0"):
            found.append(int(entry.name))
    return found


def _parents() -> dict[int, int]:
    parents = {}
    for entry in _entries():
        try:
            parents[int(entry.name)] = int(
                (entry / "stat").read_text().rsplit(")", 1)[1].split()[1]
            )
        except (OSError, ValueError, IndexError):
            continue
    return parents


def _entries() -> list[Path]:
    try:
        return [entry for entry in PROC.iterdir() if entry.name.isdigit()]
    except OSError:
        return []
