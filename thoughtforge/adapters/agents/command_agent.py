"""One attempt of a command agent: the prompt on stdin, the reply read from stdout as its CLI
profile says, within its write boundary (`write_boundary`), each way it can fail (not found,
timed out, too long, refused, wrote outside its project, exited, empty) turned into an `Attempt`
the retry loop (`invoke`) reads; a disk that cannot take the call is the disk's failure, raised
at once."""

from __future__ import annotations

import errno
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from thoughtforge.adapters.agents.agent_call import AgentCall, Attempt, failed
from thoughtforge.adapters.agents.kinds import cli_kind, cli_names, normalise
from thoughtforge.adapters.agents.kinds.cli_kind import CliKind
from thoughtforge.adapters.agents.output import AgentOutputError, CliApiError, CliRefusal
from thoughtforge.adapters.agents.process import ProcessResult, run_command
from thoughtforge.adapters.agents.write_boundary import Boundary, open_boundary
from thoughtforge.config import AgentsConfig, AgentSpec, CommandAgentSpec
from thoughtforge.core.agent_activity import stream_output
from thoughtforge.core.atomic_write import unwritable
from thoughtforge.core.processes import track_process, untrack_process
from thoughtforge.errors import FailureKind
from thoughtforge.terminal_text import without_escapes

_STDERR_EXCERPT = 300
_DISK_ERRORS = frozenset({errno.ENOSPC, errno.EROFS, errno.EDQUOT})
"""A call that cannot start for these is the disk's failure (halts `file_system_error`)."""


def find_command(spec: CommandAgentSpec) -> str | None:
    """PATH first, then beside this Python, so a venv's own scripts work without activating it."""
    return shutil.which(spec.command) or shutil.which(
        spec.command, path=str(Path(sys.executable).parent)
    )


def kind_for(spec: AgentSpec) -> CliKind | None:
    """The CLI a command agent's `profile` names; None for a plain command or an HTTP agent."""
    return cli_kind(spec.profile) if isinstance(spec, CommandAgentSpec) else None


class CommandAgent:
    """A command agent (`AgentKind`): a plain command, or a CLI its `profile` names."""

    def __init__(self, spec: CommandAgentSpec) -> None:
        self.spec = spec

    def overhead_tokens(self) -> int:
        kind = kind_for(self.spec)
        return 0 if kind is None else kind.overhead_tokens

    def attempt(self, prompt: str, call: AgentCall, limits: AgentsConfig, number: int) -> Attempt:
        return run_command_agent(self.spec, prompt, call, limits)


def run_command_agent(
    spec: CommandAgentSpec, prompt: str, call: AgentCall, limits: AgentsConfig
) -> Attempt:
    executable = find_command(spec)
    if executable is None:
        return failed(FailureKind.UNAVAILABLE, f"command '{spec.command}' not found on PATH")
    profile = kind_for(spec)
    try:
        boundary = open_boundary(
            call.project_dir,
            project_writable=call.writes or profile is None,
            also_writable=profile.own_paths(os.environ) if profile else (),
        )
    except OSError as exc:
        raise unwritable(Path(tempfile.gettempdir()), exc) from None
    try:
        result = _run(executable, spec, profile, prompt, call, limits, boundary)
    except OSError as exc:
        if exc.errno in _DISK_ERRORS:  # the project's disk, not the agent: no retry helps
            raise unwritable(call.project_dir, exc) from None
        reason = f"could not start '{spec.command}': {exc.strerror or exc}"
        return failed(FailureKind.UNAVAILABLE, reason)
    finally:
        boundary.close()
    attempt = _attempt_of(result, spec, profile, call, limits, boundary)
    if profile is not None:
        attempt.inside = [
            without_escapes(note) for note in profile.inside(result.stdout, result.stderr)
        ]
    return attempt


def _attempt_of(
    result: ProcessResult,
    spec: CommandAgentSpec,
    profile: CliKind | None,
    call: AgentCall,
    limits: AgentsConfig,
    boundary: Boundary,
) -> Attempt:
    """What the finished command gave: its reply, or how it failed."""
    outside = boundary.written_outside()
    if outside is not None:
        return Attempt(refusal=outside)
    if result.stopped and profile is not None:  # a refused login: no retry helps
        return Attempt(refusal=f"{result.stopped}: {profile.login_hint}, then resume.")
    stopped = _stopped(result, limits, profile)
    if stopped is not None:
        return stopped
    try:
        reply = (
            profile.read(result.stdout, result.stderr, call.writes)
            if profile is not None
            else normalise(spec.output, result.stdout, result.stderr, call.writes)
        )
    except CliRefusal as exc:
        fix = f"{exc.fix}." if exc.fix else _refusal_fix(spec, call)
        return Attempt(refusal=without_escapes(f"{exc}. {fix}"))
    except CliApiError as exc:
        if exc.login_refused and profile is not None:  # a key no retry makes good
            return Attempt(refusal=f"{exc}. {profile.login_hint}, then resume.")
        return failed(FailureKind.EXITED, str(exc))
    except AgentOutputError as exc:
        exited = _failure_of(result)  # a CLI that failed before printing its JSON
        return exited if exited is not None else failed(FailureKind.UNREADABLE, str(exc))
    exited = _failure_of(result)
    if exited is not None:
        return exited
    if not reply:
        return failed(FailureKind.EMPTY, "empty output" + _stderr_excerpt(result))
    return Attempt(reply=reply)


def _run(
    executable: str,
    spec: CommandAgentSpec,
    profile: CliKind | None,
    prompt: str,
    call: AgentCall,
    limits: AgentsConfig,
    boundary: Boundary,
) -> ProcessResult:
    """The command, in its project, within its write boundary, tracked while it runs."""
    env = {**os.environ, **call.environment(), **boundary.environment()}
    if profile is not None:
        env.update(profile.retry_environment(limits.call_timeout_seconds, boundary.scratch))
    held = boundary.writable is not None
    flags = [*profile.flags(call.test_command, held), *spec.flags] if profile else spec.flags
    started: list[int] = []

    def track(pid: int) -> None:
        started.append(pid)
        track_process(call.project_dir, pid)

    try:
        return run_command(
            [executable, *flags],
            prompt,
            env,
            limits.call_timeout_seconds,
            limits.max_reply_bytes,
            on_start=track,
            cwd=call.project_dir,
            on_output=_watched(call, profile),
            writable=boundary.writable,
        )
    finally:
        for pid in started:
            untrack_process(call.project_dir, pid)


def _watched(call: AgentCall, profile: CliKind | None) -> Callable[[bytes], None]:
    """What the agent writes, streamed to the workbench (and read as it comes, for a CLI whose
    events can show a refused login)."""
    watch = profile.watch() if profile is not None else None

    def on_output(chunk: bytes) -> None:
        stream_output(call.project_dir, chunk)
        if watch is not None:
            watch(chunk)

    return on_output


def _refusal_fix(spec: CommandAgentSpec, call: AgentCall) -> str:
    """What to do about a CLI refused the tools of a step that writes."""
    if spec.profile is None:
        return (
            "The entry has no profile, so nothing granted it edits: set its profile to "
            f"{cli_names()}, then resume."
        )
    command = " ".join(call.test_command or ())
    return (
        f"This step may edit files in the project folder and run `{command}`, nothing else; "
        "give guidance that keeps the agent to that (or fix the test command), then resume."
    )


def _stopped(
    result: ProcessResult, limits: AgentsConfig, profile: CliKind | None
) -> Attempt | None:
    """A call ThoughtForge stopped: out of time, or an reply too long."""
    if result.timed_out:
        hint = (
            f"; a CLI that is not logged in (a 401) may retry until then: {profile.login_hint}"
            if profile is not None
            else ""
        )
        return failed(
            FailureKind.TIMED_OUT,
            f"timed out after {limits.call_timeout_seconds:g}s (process group killed){hint}",
        )
    if result.too_large:
        return failed(
            FailureKind.TOO_LARGE,
            f"reply longer than agents.max_reply_bytes ({limits.max_reply_bytes:,} bytes); "
            "the agent was stopped",
        )
    return None


def _failure_of(result: ProcessResult) -> Attempt | None:
    if result.returncode != 0:
        return failed(
            FailureKind.EXITED, f"exit code {result.returncode}" + _stderr_excerpt(result)
        )
    if not result.stdout.strip():
        return failed(FailureKind.EMPTY, "empty output" + _stderr_excerpt(result))
    return None


def _stderr_excerpt(result: ProcessResult) -> str:
    """What the agent said on stderr: often the only clue (`curl: (7) Failed to connect…`)."""
    excerpt = result.stderr.strip()[-_STDERR_EXCERPT:]
    return f": {excerpt}" if excerpt else ""
