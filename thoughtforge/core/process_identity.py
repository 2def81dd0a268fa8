"""A process named so that it cannot be mistaken for another: its pid, the machine and the boot
it runs in, and the moment it started (a pid is reused once its process ends, the start time is
not). Whoever holds something of a project records this, so whoever finds it later can tell
whether the holder still lives — without a wall clock, which can be set back or differ between
machines sharing a projects folder.
"""

from __future__ import annotations

import os
import socket
import time
from functools import cache
from pathlib import Path

from pydantic import BaseModel

BOOT_ID_FILE = Path("/proc/sys/kernel/random/boot_id")
UNKNOWN_BOOT = "unknown"
"""The boot id of a process that could not read it."""


class ProcessIdentity(BaseModel):
    pid: int
    host: str
    boot_id: str
    started: int
    """Clock ticks after boot at which the process started (`start_time`)."""


def this_process() -> ProcessIdentity:
    pid = os.getpid()
    return ProcessIdentity(
        pid=pid, host=socket.gethostname(), boot_id=boot_id(), started=start_time(pid) or 0
    )


def is_alive(process: ProcessIdentity) -> bool | None:
    """Whether the process still runs: None when it ran on another machine (this one cannot
    look), or when a boot id is unknown (this boot's or the one it ran in) and its pid is not
    it: a reboot cannot be told from an ended process, and only a proven end is "gone". False
    once this machine rebooted, or its pid is gone or belongs to a newer process."""
    if process.host != socket.gethostname():
        return None
    same_process = start_time(process.pid) == process.started and running(process.pid)
    if UNKNOWN_BOOT in (process.boot_id, boot_id()):
        return True if same_process else None
    if process.boot_id != boot_id():
        return False
    return same_process


def is_init(process: ProcessIdentity) -> bool:
    """Whether pid 1 here is ThoughtForge itself (as in a container), not the system's init."""
    try:
        command = Path("/proc/1/cmdline").read_bytes()
    except OSError:
        return False
    return process.pid == 1 and b"thoughtforge" in command


def on_this_machine(process: ProcessIdentity) -> bool:
    return process.host == socket.gethostname()


@cache
def boot_id() -> str:
    """This boot of this machine (it changes at every boot; one per process is enough)."""
    try:
        return BOOT_ID_FILE.read_text().strip()
    except OSError:
        return UNKNOWN_BOOT


def seconds_since_boot() -> float:
    """A clock that never runs backwards and counts through suspends: how old something is
    on this boot."""
    return time.clock_gettime(time.CLOCK_BOOTTIME)


def running(pid: int) -> bool:
    """Alive and not a zombie (a child of ours that exited but was not yet reaped)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def start_time(pid: int) -> int | None:
    """Clock ticks after boot at which `pid` started (field 22 of /proc/<pid>/stat)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[19])
