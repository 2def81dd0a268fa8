"""Run one agent command: prompt on stdin, reply on stdout, bounded in time and in size.

No shell is involved and the prompt never touches argv. The command runs under a `supervisor`
that leads a new session and ends the command's whole tree, however it forked, when the call
ends or ThoughtForge does (the thread that starts it waits for it here to its end, so the
parent-death signal never comes early); with `writable`, the supervisor also holds every write
of the tree beneath those paths (`landlock`). The pipes are read with a deadline, never
waited on unbounded, because a helper the agent started in a session of its own can hold them
open forever:

* timeout: at the deadline the group is killed, what was read so far is kept, the pipes closed;
* an agent that exited: its reply is what it wrote; the supervisor ends what it left running;
* an agent that closed its outputs gets `EXIT_GRACE_SECONDS` to exit before its group is killed;
* an reply longer than `max_bytes` stops the reading and kills the group: it is refused whole;
* stderr (diagnostics, not the reply) is never refused: only its last `max_bytes` are kept.

`on_output` may end the call early by raising `StopReading` (the group is killed);
`cwd` runs the command in a folder (a coding agent or a test suite in its project);
`merge_stderr` reads both streams as one, in the order written (a test runner's output).
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO

from pydantic import BaseModel

from thoughtforge.adapters.agents.supervisor import NOT_STARTED, not_started, supervised

EXIT_GRACE_SECONDS = 1.0
_POLL_SECONDS = 0.05
_CHUNK = 65536


class StopReading(Exception):
    """Raised by an `on_output` that has seen enough (an agent retrying a refused login): the
    group is killed at once and `ProcessResult.stopped` says why."""


class ProcessResult(BaseModel):
    returncode: int | None
    stdout: str
    stderr: str
    timed_out: bool
    too_large: bool = False
    stopped: str = ""
    """Why `on_output` stopped the command (`StopReading`); empty when it was not."""


def run_command(
    argv: list[str],
    stdin_text: str,
    env: Mapping[str, str],
    timeout: float,
    max_bytes: int,
    on_start: Callable[[int], None] = lambda pid: None,
    *,
    cwd: Path | None = None,
    merge_stderr: bool = False,
    on_output: Callable[[bytes], None] = lambda chunk: None,
    writable: Sequence[Path] | None = None,
) -> ProcessResult:
    """`on_start` gets the pid (and process group) as soon as the child exists; `on_output`
    gets each piece of stdout as it arrives (the workbench shows an reply as it streams);
    `writable`, where the command may write (None: anywhere)."""
    started = supervised(argv, writable)
    proc = subprocess.Popen(
        started,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE,
        env=dict(env),
        cwd=cwd,
        start_new_session=True,
    )
    try:
        on_start(proc.pid)
        pipes = _Pipes(proc, stdin_text.encode("utf-8"), max_bytes, on_output)
        timed_out = pipes.exchange(time.monotonic() + timeout)
    finally:
        _end_tree(proc)
        _close(proc)
    returncode = _wait(proc)
    stdout, stderr = _text(pipes.output[proc.stdout]), _text(pipes.output.get(proc.stderr, b""))
    if returncode == NOT_STARTED:
        refused = not_started(stderr or stdout, argv[0])
        if refused is not None:
            raise refused
    return ProcessResult(
        returncode=None if timed_out else returncode,
        stdout=stdout,
        stderr=stderr,
        timed_out=timed_out,
        too_large=pipes.too_large,
        stopped=pipes.stopped,
    )


class _Pipes:
    """Feeds stdin and collects stdout/stderr without ever blocking past a deadline."""

    def __init__(
        self,
        proc: subprocess.Popen[bytes],
        data: bytes,
        max_bytes: int,
        on_output: Callable[[bytes], None],
    ) -> None:
        self.proc = proc
        self.on_output = on_output
        self.data = memoryview(data)
        self.max_bytes = max_bytes
        self.too_large = False
        self.stopped = ""
        streams = [stream for stream in (proc.stdout, proc.stderr) if stream is not None]
        self.output: dict[IO[bytes] | None, bytearray] = {stream: bytearray() for stream in streams}
        self.open_outputs: set[IO[bytes]] = set()
        self.selector = selectors.DefaultSelector()
        for stream in streams:
            os.set_blocking(stream.fileno(), False)
            self.selector.register(stream, selectors.EVENT_READ)
            self.open_outputs.add(stream)
        assert proc.stdin is not None
        if data:
            os.set_blocking(proc.stdin.fileno(), False)
            self.selector.register(proc.stdin, selectors.EVENT_WRITE)
        else:
            proc.stdin.close()

    def exchange(self, deadline: float) -> bool:
        """Until both outputs end, the reply is too large or the time is up; True on timeout."""
        exited_at: float | None = None
        try:
            while self.open_outputs:
                now = time.monotonic()
                if now >= deadline:
                    return True
                if exited_at is None and self.proc.poll() is not None:
                    exited_at = now
                if exited_at is not None and now - exited_at > EXIT_GRACE_SECONDS:
                    return False
                for key, _ in self.selector.select(min(_POLL_SECONDS, deadline - now)):
                    self._step(key.fileobj)  # type: ignore[arg-type]  # registered as IO[bytes]
                if self.too_large or self.stopped:
                    return False
            return self._await_exit(deadline)
        finally:
            self.selector.close()

    def _await_exit(self, deadline: float) -> bool:
        """Both outputs ended, which can be before the agent itself has (coreutils close their
        streams at exit): it gets `EXIT_GRACE_SECONDS` to end, within the deadline, so that the
        group's kill that follows reaps only helpers and never turns an reply into a -9.
        True when the deadline, not the grace, ran out first."""
        grace_ends = time.monotonic() + EXIT_GRACE_SECONDS
        try:
            self.proc.wait(timeout=max(0.0, min(deadline, grace_ends) - time.monotonic()))
        except subprocess.TimeoutExpired:
            return deadline < grace_ends
        return False

    def _step(self, stream: IO[bytes]) -> None:
        if stream is self.proc.stdin:
            self._write(stream)
            return
        chunk = os.read(stream.fileno(), _CHUNK)
        if not chunk:
            self.selector.unregister(stream)
            self.open_outputs.discard(stream)
            return
        self.output[stream] += chunk
        if stream is self.proc.stdout:
            try:
                self.on_output(chunk)
            except StopReading as stop:
                self.stopped = str(stop)
        if len(self.output[stream]) <= self.max_bytes:
            return
        if stream is self.proc.stdout:
            self.too_large = True
        else:
            del self.output[stream][: -self.max_bytes]

    def _write(self, stdin: IO[bytes]) -> None:
        try:
            written = os.write(stdin.fileno(), self.data[:_CHUNK])
        except BrokenPipeError:
            written = len(self.data)  # the agent stopped reading: it has what it wanted
        self.data = self.data[written:]
        if not self.data:
            self.selector.unregister(stdin)
            stdin.close()


def _end_tree(proc: subprocess.Popen[bytes]) -> None:
    """The supervisor ends the command's tree and itself (at once when the command has ended);
    the group's kill after it is for a supervisor that could not."""
    if proc.poll() is None:
        try:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=EXIT_GRACE_SECONDS)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        return


def _close(proc: subprocess.Popen[bytes]) -> None:
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None and not stream.closed:
            try:
                stream.close()
            except BrokenPipeError:
                continue


def _wait(proc: subprocess.Popen[bytes]) -> int | None:
    """The agent itself was killed with its group if it had not exited, so this is immediate."""
    try:
        return proc.wait(timeout=EXIT_GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        return None


def _text(data: bytes | bytearray) -> str:
    return data.decode("utf-8", errors="replace")
