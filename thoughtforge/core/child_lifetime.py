"""A child process never outlives the process that waits for it.

A child started in its own session (so that its whole group can be stopped) no longer gets the
terminal's signals, and nothing ends it when its parent is killed: an agent CLI or a plugin check
whose import never ends would spin on at 100 % CPU. On Linux the child asks the kernel for SIGKILL
when its parent ends (`prctl(PR_SET_PDEATHSIG)`), in one of two ways, never as a `preexec_fn`
(that runs between fork and exec, which is unsafe in a process with threads):

* a command (an agent, a test suite: `adapters.agents.process`) is started through util-linux's
  `setpriv --pdeathsig KILL`, which asks after the fork, in its own process, then execs the
  command (`dying_with_parent`); without a `setpriv` that takes it, the command runs as before,
  and a run killed with -9 leaves it to `core.processes`, which the next run of the project ends;
* a Python child of ThoughtForge's own calls `die_with_parent` itself, first thing (the plugin
  check), and checks that its parent had not already ended.

The kernel's "parent" is the thread that started the child: the signal comes when that thread
ends, so the thread that starts a child must be the one that waits for it to its end. Servers
meant to outlive the command that started them (`thoughtforge up`) and runs an MCP server starts
use neither. Elsewhere than Linux, both are no-ops.
"""

from __future__ import annotations

import ctypes
import functools
import os
import signal
import subprocess
import sys

SETPRIV = "/usr/bin/setpriv"
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


def dying_with_parent(argv: list[str]) -> list[str]:
    """`argv`, started so that it is killed when the thread that starts it ends; `argv` itself
    where `setpriv --pdeathsig` is not at hand."""
    if not _setpriv_takes_pdeathsig():
        return argv
    return [SETPRIV, "--pdeathsig", "KILL", "--", *argv]


@functools.cache
def _setpriv_takes_pdeathsig() -> bool:
    """util-linux's `setpriv` is installed and knows `--pdeathsig` (from 2.33)."""
    if not sys.platform.startswith("linux") or not os.access(SETPRIV, os.X_OK):
        return False
    try:
        shown = subprocess.run(
            [SETPRIV, "--help"], capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "--pdeathsig" in shown.stdout
