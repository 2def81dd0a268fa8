"""Run one agent command: prompt on stdin, answer on stdout, its process group killed on timeout."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Mapping

from pydantic import BaseModel

_DRAIN_SECONDS = 5


class ProcessResult(BaseModel):
    returncode: int | None
    stdout: str
    stderr: str
    timed_out: bool


def run_command(
    argv: list[str], stdin_text: str, env: Mapping[str, str], timeout: float
) -> ProcessResult:
    """No shell is involved: `argv` is executed directly and the prompt never touches argv.

    The child leads a new session, so on timeout `killpg` also reaches anything it spawned.
    """
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(env),
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(stdin_text.encode("utf-8"), timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        out, err = _drain(proc)
        return ProcessResult(returncode=None, stdout=_text(out), stderr=_text(err), timed_out=True)
    except BaseException:
        _kill_group(proc)
        raise
    _kill_group(proc)
    return ProcessResult(
        returncode=proc.returncode, stdout=_text(out), stderr=_text(err), timed_out=False
    )


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Also reap helpers the agent left running after it exited."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        return


def _drain(proc: subprocess.Popen[bytes]) -> tuple[bytes, bytes]:
    try:
        return proc.communicate(timeout=_DRAIN_SECONDS)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.communicate()


def _text(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", errors="replace")
