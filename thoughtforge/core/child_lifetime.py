"""A child process never outlives the process that waits for it.

A child started in its own session (so that its whole group can be stopped) no longer gets the
terminal's signals, and nothing ends it when its parent is killed: a plugin check whose import
never ends would spin on at 100 % CPU. On Linux the child asks the kernel for SIGKILL when its
parent ends (`prctl(PR_SET_PDEATHSIG)`), then checks that the parent had not already ended.
Elsewhere this is a no-op. The child calls it itself, first thing (the plugin check does): as a
`preexec_fn` it would run between fork and exec, which is unsafe in a process with threads, and
the signal would follow the forking thread rather than the process. Agent processes do not use it:
a run killed with -9 leaves them to `core.processes`, which the next run of the project ends.
Servers meant to outlive the command that started them (`thoughtforge up`) and runs an MCP
server starts do not use it either.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

_PR_SET_PDEATHSIG = 1
_prctl = None
if sys.platform.startswith("linux"):
    try:
        _prctl = ctypes.CDLL(None, use_errno=True).prctl  # resolved here, not in a forked child
    except (OSError, AttributeError):
        _prctl = None


def die_with_parent(parent_pid: int) -> None:
    """In the child: be killed when `parent_pid` ends (now, if it already has)."""
    if _prctl is not None:
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent_pid:
        os.kill(os.getpid(), signal.SIGKILL)
