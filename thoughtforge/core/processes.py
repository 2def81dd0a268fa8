"""The processes a run starts (agents, a temporary Prefect server), recorded so the next run can
end them if this one dies.

An agent call's supervisor ends its whole tree when the run dies (`adapters.agents.supervisor`);
what is left anyway (a supervisor killed itself, a temporary Prefect server) is found here. Each
process started is recorded in the project with its start time, and whoever next takes the
project's run lock ends exactly those that are still the same processes (a pid alone could by then
belong to anything, the start time cannot), with everything below them, and every process still
carrying the project's `AGENT_MARK` in its environment (an agent's helper that left the tree).
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Collection
from pathlib import Path

from thoughtforge.core.atomic_write import unwritable, write_text_atomic
from thoughtforge.core.own_files import read_own_json
from thoughtforge.core.process_identity import running, start_time
from thoughtforge.core.project_log import log_event
from thoughtforge.process_tree import carrying, descendants

PROCESSES_FILE = ".processes.json"
AGENT_MARK = "THOUGHTFORGE_PROJECT_DIR"
"""Set to the project's folder in the environment of every process of an agent call or a test
run, which its helpers inherit whatever they do."""


def track_process(project_dir: Path, pid: int) -> None:
    """Record `pid` with its start time, before anything can kill this run."""
    started = start_time(pid)
    if started is None:
        return
    records = _records(project_dir)
    records[str(pid)] = started
    _save(project_dir, records)


def untrack_process(project_dir: Path, pid: int) -> None:
    """Forget `pid` once it has been waited for."""
    records = _records(project_dir)
    if records.pop(str(pid), None) is not None:
        _save(project_dir, records)


def live_processes(project_dir: Path) -> list[int]:
    """The recorded pids that are still the processes that were recorded."""
    return [
        int(pid)
        for pid, started in _records(project_dir).items()
        if start_time(int(pid)) == started
    ]


def end_leftover_processes(
    project_dir: Path,
    grace_seconds: float = 0.0,
    only: Collection[int] | None = None,
    expected: bool = False,
) -> list[int]:
    """Kill the recorded process groups that are still alive, and every process they started
    (some lead sessions of their own: a Prefect worker's flow runs do); returns the recorded pids.

    With `grace_seconds`, each is asked to stop (SIGTERM) and given that long before it is
    killed: `thoughtforge down` lets the server close its database cleanly. With `only`, just
    those recorded pids are ended, and the others stay recorded; without, also the processes
    marked with the project (`AGENT_MARK`). `expected` (a `down`) logs the ending as news, not as
    a warning about leftovers.
    """
    alive = live_processes(project_dir)
    chosen = [pid for pid in alive if only is None or pid in only]
    strays = [] if only is not None else _marked(project_dir)
    ended = _end([*chosen, *strays], grace_seconds)
    if ended:
        level = "info" if expected else "warning"
        log_event(project_dir, "leftover_processes_ended", level=level, pids=ended)
    still = {pid: at for pid, at in _records(project_dir).items() if int(pid) in alive}
    _save(project_dir, {pid: at for pid, at in still.items() if int(pid) not in chosen})
    return [pid for pid in [*chosen, *strays] if pid in ended]


def _marked(project_dir: Path) -> list[int]:
    """The processes of the project's earlier calls, by their mark; never this one."""
    names = {str(project_dir), str(project_dir.resolve())}
    found = {pid for name in names for pid in carrying(AGENT_MARK, name)}
    return sorted(found - {os.getpid()})


def _end(roots: list[int], grace_seconds: float) -> list[int]:
    """Stop `roots` and their descendants; those that were still there to be signalled."""
    targets = [*roots, *descendants(roots)]
    signum = signal.SIGTERM if grace_seconds else signal.SIGKILL
    ended = [pid for pid in targets if _signal(pid, signum)]
    deadline = time.monotonic() + grace_seconds
    while grace_seconds and time.monotonic() < deadline and any(running(p) for p in ended):
        time.sleep(0.1)
    for pid in ended:
        if running(pid):
            _signal(pid, signal.SIGKILL)
    return ended


def _signal(pid: int, signum: int) -> bool:
    """An agent leads its own process group: the group goes with it. A process that leads no
    group (Prefect's temporary server) goes alone. False when it is already gone."""
    try:
        try:
            os.killpg(pid, signum)
        except ProcessLookupError:
            os.kill(pid, signum)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _records(project_dir: Path) -> dict[str, int]:
    try:
        data = read_own_json(project_dir / PROCESSES_FILE)
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if k.isdigit() and isinstance(v, int)}


def _save(project_dir: Path, records: dict[str, int]) -> None:
    if records:
        write_text_atomic(project_dir / PROCESSES_FILE, json.dumps(records))
        return
    try:
        (project_dir / PROCESSES_FILE).unlink(missing_ok=True)
    except OSError as exc:  # a read-only folder: the step's own next write halts the run
        raise unwritable(project_dir / PROCESSES_FILE, exc) from None
