"""The process between ThoughtForge and a command it runs (an agent CLI, the project's tests): it
ends the command's whole tree when ThoughtForge ends, and holds its writes to the folders named.

A CLI relaunches itself (Gemini CLI's `node --max-old-space-size=… gemini`), runs a native binary
under a launcher (Codex), or starts helpers in sessions of their own: a signal to the process
ThoughtForge started, or to its group, misses those. So ThoughtForge starts this instead
(`supervised`), and it

* asks the kernel for SIGTERM when the thread that started it ends (`PR_SET_PDEATHSIG`): a
  ThoughtForge killed with -9, stopped or crashed;
* is the subreaper of everything below it (`PR_SET_CHILD_SUBREAPER`): an orphan, however it
  left its parent's group, becomes its child instead of init's, and stays in its tree;
* with `--write`, restricts itself and so the command to writing beneath those paths only
  (`landlock`); the command is not started when that fails;
* starts the command (inheriting stdin, stdout and stderr, which it then lets go of itself, so the
  command's end of them is the only one) and waits for it;
* on SIGTERM (its parent's death, or ThoughtForge ending the call) or once the command exits,
  SIGKILLs every process left below it until none is, and exits as the command did (killed:
  by SIGKILL).

It imports only the standard library and `landlock`, and starts in a few hundredths of a second.
Elsewhere than Linux `supervised` returns the command as it is.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from thoughtforge.adapters.agents.landlock import LandlockError, restrict_writes
from thoughtforge.process_tree import descendants

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_END_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
_ENDING_SECONDS = 2.0
"""The most the tree's end is given (a SIGKILLed process cannot refuse; this bounds a fork race)."""
NOT_STARTED = 127
"""The exit code when the command could not be started or restricted, as a shell's."""
_SAYS = "thoughtforge-supervisor"
_NOT_STARTED_LINE = re.compile(rf"^{_SAYS}: errno (?P<code>\d+): (?P<why>[^\n]*)$", re.MULTILINE)


def supervised(argv: Sequence[str], writable: Sequence[Path] | None) -> list[str]:
    """The argv that runs `argv` under a supervisor child of this thread; with `writable`, its
    writes held beneath those paths."""
    if not sys.platform.startswith("linux"):
        return list(argv)
    confined = [] if writable is None else ["--confined"]
    writes = [part for path in writable or () for part in ("--write", str(path))]
    head = [sys.executable, "-P", "-m", __name__, str(os.getpid()), *confined, *writes, "--"]
    return [*head, *argv]


def not_started(said: str, command: str) -> OSError | None:
    """The `OSError` starting `command` itself would have raised, from what the supervisor said
    when it could not (exit code `NOT_STARTED`); None when it said nothing of the kind."""
    found = _NOT_STARTED_LINE.search(said)
    if found is None:
        return None
    return OSError(int(found["code"]), found["why"], command)


class _Ended(Exception):
    """A signal told the supervisor to end the command's tree now."""


def main(arguments: list[str]) -> NoReturn:
    parent, writable, command = _parse(arguments)
    for signum in _END_SIGNALS:
        signal.signal(signum, _end_now)
    try:
        _prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # ThoughtForge ended before the kernel could watch it
            raise _Ended
        _prctl(_PR_SET_CHILD_SUBREAPER, 1)
        null = os.open(os.devnull, os.O_RDWR)  # before the boundary, which may not allow it
        agent = _start(command, writable)
        _let_go_of_the_streams(null)
        status = _wait_for(agent.pid)
    except _Ended:
        _end_tree()
        _exit_as(-signal.SIGKILL)
    _end_tree()
    _exit_as(status)


def _parse(arguments: list[str]) -> tuple[int, list[Path] | None, list[str]]:
    split = arguments.index("--")
    options = arguments[1:split]
    writable = None
    if options[:1] == ["--confined"]:
        writable = [Path(value) for value in options[2::2]]
    return int(arguments[0]), writable, arguments[split + 1 :]


def _start(command: list[str], writable: list[Path] | None) -> subprocess.Popen[bytes]:
    try:
        if writable is not None:
            restrict_writes(writable)
        return subprocess.Popen(command)
    except LandlockError as exc:
        _refuse(errno.EPERM, f"the write boundary could not be set: {exc.strerror}")
    except OSError as exc:
        _refuse(exc.errno or errno.ENOEXEC, exc.strerror or str(exc))


def _refuse(code: int, why: str) -> NoReturn:
    os.write(2, f"{_SAYS}: errno {code}: {why}\n".encode())
    os._exit(NOT_STARTED)


def _let_go_of_the_streams(null: int) -> None:
    """The command holds its pipes alone: a command that closes its outputs ends the reading."""
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)


def _wait_for(agent: int) -> int:
    """The command's end as `Popen.returncode` says it, reaping the orphans that come meanwhile."""
    while True:
        pid, status = os.waitpid(-1, 0)
        if pid == agent:
            return os.waitstatus_to_exitcode(status)


def _end_now(signum: int, frame: object) -> None:
    raise _Ended


def _end_tree() -> None:
    """SIGKILL every process below this one, reaping them, until none is left."""
    for signum in _END_SIGNALS:
        signal.signal(signum, signal.SIG_IGN)  # ending already; a second signal changes nothing
    deadline = time.monotonic() + _ENDING_SECONDS
    while time.monotonic() < deadline:
        _reap()
        below = descendants([os.getpid()])
        if not below:
            return
        for pid in below:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.005)


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _exit_as(status: int) -> NoReturn:
    """Exit with the command's code, or die of the signal that killed it."""
    if status < 0:
        with contextlib.suppress(OSError, ValueError):  # SIGKILL has no handler to reset
            signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
    os._exit(status if status >= 0 else 128 - status)


def _prctl(option: int, value: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0) != 0:
        code = ctypes.get_errno()
        _refuse(code, f"prctl({option}): {os.strerror(code)}")


if __name__ == "__main__":
    main(sys.argv[1:])
