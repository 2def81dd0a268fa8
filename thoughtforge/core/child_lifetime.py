"""A child process never outlives the process that waits for it.

A child started in its own session (so that its whole group can be stopped) no longer gets the
terminal's signals, and nothing ends it when its parent is killed: a plugin check whose import
never ends would spin on at 100 % CPU. On Linux the child asks the kernel for SIGKILL when its
parent ends (`prctl(PR_SET_PDEATHSIG)`), never as a `preexec_fn` (that runs between fork and
exec, which is unsafe in a process with threads): a Python child of ThoughtForge's own calls
`die_with_parent` itself, first thing (the plugin check), and checks that its parent had not
already ended. A command (an agent, a test suite) is started under `adapters.agents.supervisor`
instead, which does the same and also ends everything the command started.

The kernel's "parent" is the thread that started the child: the signal comes when that thread
ends, so the thread that starts a child must be the one that waits for it to its end. Servers
meant to outlive the command that started them (`thoughtforge up`) and runs an MCP server starts
use neither. Elsewhere than Linux, it is a no-op.
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
