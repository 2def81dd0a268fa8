"""The agent layer: call an agent from config, retry once, then raise `AgentFailure`.

Two kinds sit behind this one interface: a command (prompt on stdin, answer on stdout; every call
tells it what is being asked through environment variables, so any executable, a real agent CLI or
a scripted one, can serve) and an OpenAI-compatible HTTP endpoint (`http_agent`). Both are recorded
as the call in flight, stream what they write into the project, and get the same retry rules.

A prompt that does not fit the agent's window, with its answer's room kept, is refused before any
call (`PromptTooLarge`): sending it would only have the model cut or ramble.
"""

from __future__ import annotations

import errno
import os
import shutil
import sys
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from thoughtforge.adapters.agents.call_budget import check_budget, record_call
from thoughtforge.adapters.agents.call_usage import measuring, of_call
from thoughtforge.adapters.agents.graceful_stop import agent_call
from thoughtforge.adapters.agents.http_agent import ask_endpoint
from thoughtforge.adapters.agents.image_parts import (
    ImageRefused,
    image_tokens,
    load_image,
    refusal_of_images,
    sends_images,
    user_content,
)
from thoughtforge.adapters.agents.output import (
    AgentOutputError,
    CliApiError,
    CliRefusal,
    normalise,
    watch_claude_stream,
)
from thoughtforge.adapters.agents.process import ProcessResult, run_command
from thoughtforge.adapters.agents.profiles import CliProfile, profile_of
from thoughtforge.adapters.agents.switches import tool_granting_flags
from thoughtforge.config import (
    AgentsConfig,
    AgentSpec,
    CommandAgentSpec,
    Config,
    OpenAIAgentSpec,
)
from thoughtforge.core import log_event, track_process, untrack_process, utc_now
from thoughtforge.core.agent_activity import AgentActivity, begin_call, end_call, stream_output
from thoughtforge.core.atomic_write import unwritable
from thoughtforge.errors import (
    AgentFailure,
    AgentRefused,
    AnswerCutOff,
    AttemptFailure,
    FailureKind,
    PromptTooLarge,
)
from thoughtforge.prompting.context_window import estimate_tokens
from thoughtforge.terminal_text import without_escapes

ATTEMPTS = 2
TEMPERATURE_STEP = 0.3
"""An HTTP agent's temperature rises by this at each re-ask and retry: at temperature 0 the same
prompt gets the same answer, and a re-ask must be able to get another one."""
MAX_TEMPERATURE = 1.2
_STDERR_EXCERPT = 300


_DISK_ERRORS = frozenset({errno.ENOSPC, errno.EROFS, errno.EDQUOT})
"""A call that cannot start for these is the disk's failure (halts `file_system_error`)."""


class Attempt(BaseModel):
    """One attempt of a call: the answer, or how it failed (`refusal`: its tools were refused,
    which no retry changes)."""

    answer: str = ""
    failure: AttemptFailure | None = None
    refusal: str = ""


def _failed(kind: FailureKind, reason: str) -> Attempt:
    return Attempt(failure=AttemptFailure(kind=kind, reason=reason))


class AgentCall(BaseModel):
    """What an invocation is for; becomes the THOUGHTFORGE_* environment of the agent."""

    step: str
    project_dir: Path
    phase: str
    iteration: int | None = None
    answer_schema: dict[str, Any] | None = None
    """The JSON schema a JSON step's answer must fit: an HTTP agent sends it (structured output)."""
    sections: tuple[str, ...] = ()
    """The `##` sections a Markdown step's answer must have (sent as a grammar where it helps)."""
    reask: int = 0
    """How many answers to this question were already refused (an HTTP agent varies more)."""
    images: tuple[Path, ...] = ()
    """Images that go with the prompt: as content parts to an HTTP agent that can see
    (`image_parts`); a command agent finds their paths in the prompt instead."""
    test_command: tuple[str, ...] | None = None
    """Set on a step that edits the project's files and runs its tests (code build and fix):
    an agent CLI's profile then grants exactly that. Every other step is text only."""

    @property
    def writes(self) -> bool:
        return self.test_command is not None

    def environment(self) -> dict[str, str]:
        env = {
            "THOUGHTFORGE_STEP": self.step,
            "THOUGHTFORGE_PROJECT_DIR": str(self.project_dir),
            "THOUGHTFORGE_PHASE": self.phase,
        }
        if self.iteration is not None:
            env["THOUGHTFORGE_ITERATION"] = str(self.iteration)
        return env


def find_command(spec: CommandAgentSpec) -> str | None:
    """PATH first, then beside this Python, so a venv's own scripts work without activating it."""
    return shutil.which(spec.command) or shutil.which(
        spec.command, path=str(Path(sys.executable).parent)
    )


def overhead_tokens(spec: AgentSpec) -> int:
    """What the agent adds to every prompt of its own (a CLI's system prompt and tools)."""
    profile = _profile(spec)
    return 0 if profile is None else profile.overhead_tokens


def _profile(spec: AgentSpec) -> CliProfile | None:
    return profile_of(spec.profile) if isinstance(spec, CommandAgentSpec) else None


def _refuse_tools_on_a_text_step(agent: str, spec: AgentSpec, call: AgentCall) -> None:
    """A text step never runs with tools: an entry whose own flags grant them is refused before
    the first call, whatever the phase (a plan project's intake included)."""
    if call.writes or not isinstance(spec, CommandAgentSpec):
        return
    granted = tool_granting_flags(spec.flags)
    if not granted:
        return
    fix = (
        "its profile already grants edits to code build and fix steps only"
        if spec.profile
        else f"set agents.available.{agent}.profile to claude, codex or gemini, and ThoughtForge "
        "grants edits to code build and fix steps only"
    )
    raise AgentRefused(
        f"agent '{agent}' is asked for text at step '{call.step}', but its flags grant tools "
        f"({', '.join(granted)}). Remove them from agents.available.{agent}.flags: {fix}."
    )


CallSlot = Callable[[str], AbstractContextManager[object]]
"""Given an agent's name, a context held for the length of one call to it."""


def _no_slot(agent: str) -> AbstractContextManager[object]:
    return nullcontext()


_call_slot: CallSlot = _no_slot


def use_call_slots(slot: CallSlot) -> None:
    """Make every agent call in this process hold `slot(agent)`: the flows install Prefect's
    per-agent concurrency limit here, so workers on several machines share an agent's slots."""
    global _call_slot
    _call_slot = slot


def invoke_agent(
    config: Config, agent: str, prompt: str, call: AgentCall, attempts: int = ATTEMPTS
) -> str:
    """The agent's answer as plain text; `AgentFailure` after `attempts` failed attempts.

    The agent works in the project directory, the only place ThoughtForge lets it write. A
    caller whose agent writes files passes `attempts=1` and retries itself, after undoing what
    the failed attempt left.
    """
    spec = config.agent(agent)
    _refuse_tools_on_a_text_step(agent, spec, call)
    images = _images_for(spec, call)
    tokens = (
        estimate_tokens(prompt)
        + sum(image_tokens(data, mime) for data, mime in images)
        + overhead_tokens(spec)
    )
    if tokens > spec.prompt_budget_tokens:
        raise PromptTooLarge(agent, call.step, tokens, spec.context_window_tokens, spec.max_tokens)
    failures: list[AttemptFailure] = []
    for attempt in range(1, attempts + 1):
        check_budget(config, agent, call.project_dir, tokens)  # each attempt is paid for
        # A run told to stop starts no call (nor a retry); the call in flight may finish.
        # Waiting for a slot is not the agent's time; what the answer reports it used is metered.
        with agent_call(), _call_slot(agent), measuring() as usage:
            started_at, started = utc_now(), time.monotonic()
            activity = AgentActivity(
                agent=agent,
                step=call.step,
                phase=call.phase,
                attempt=attempt,
                started_at=started_at,
            )
            begin_call(call.project_dir, activity)
            try:
                if isinstance(spec, OpenAIAgentSpec):
                    result = _ask_endpoint(
                        agent, spec, user_content(prompt, images), call, config.agents, attempt
                    )
                else:
                    result = _run_command(spec, prompt, call, config.agents)
            finally:
                end_call(call.project_dir)
            seconds = time.monotonic() - started
        used = of_call(usage, prompt, result.answer)
        record_call(config, agent, call.project_dir, call.phase, call.iteration, used)
        log_event(
            call.project_dir,
            "agent_call",
            level="info" if result.failure is None and not result.refusal else "warning",
            agent=agent,
            step=call.step,
            attempt=attempt,
            reask=call.reask,
            started_at=started_at.isoformat(),
            seconds=round(seconds, 3),
            prompt_chars=len(prompt),
            failure=result.refusal or (None if result.failure is None else result.failure.reason),
        )
        if result.refusal:
            raise AgentRefused(f"agent '{agent}' at step '{call.step}': {result.refusal}")
        if result.failure is None:
            return result.answer
        failures.append(result.failure)
    if all(failure.kind is FailureKind.CUT_OFF for failure in failures):
        raise AnswerCutOff(agent, call.step, failures)
    raise AgentFailure(agent, call.step, failures)


def _images_for(spec: AgentSpec, call: AgentCall) -> list[tuple[bytes, str]]:
    """The call's images as an HTTP agent that can see is sent them; none for another agent."""
    if not (call.images and sends_images(spec)):
        return []
    assert isinstance(spec, OpenAIAgentSpec)
    images = []
    for path in call.images:
        try:
            images.append(load_image(path, path.name, spec))
        except ImageRefused as refused:  # checked when read; changed since
            log_event(call.project_dir, "image_skipped", level="warning", why=str(refused))
    return images


def _ask_endpoint(
    name: str,
    spec: OpenAIAgentSpec,
    prompt: str | list[dict[str, Any]],
    call: AgentCall,
    limits: AgentsConfig,
    attempt: int,
) -> Attempt:
    raised = spec.temperature + TEMPERATURE_STEP * (call.reask + attempt - 1)
    answer = ask_endpoint(
        name,
        spec,
        prompt,
        schema=call.answer_schema,
        sections=call.sections,
        step=call.step,
        temperature=min(raised, max(MAX_TEMPERATURE, spec.temperature)),
        timeout=limits.call_timeout_seconds,
        max_bytes=limits.max_reply_bytes,
        on_output=lambda chunk: stream_output(call.project_dir, chunk),
    )
    if answer.failure is None:
        return Attempt(answer=answer.text)
    refused = isinstance(prompt, list) and refusal_of_images(answer.failure.reason, name)
    return _failed(FailureKind.REFUSED, refused) if refused else Attempt(failure=answer.failure)


def _run_command(
    spec: CommandAgentSpec, prompt: str, call: AgentCall, limits: AgentsConfig
) -> Attempt:
    executable = find_command(spec)
    if executable is None:
        return _failed(FailureKind.UNAVAILABLE, f"command '{spec.command}' not found on PATH")
    env = {**os.environ, **call.environment()}
    started: list[int] = []

    def track(pid: int) -> None:
        started.append(pid)
        track_process(call.project_dir, pid)

    profile = _profile(spec)
    flags = [*profile.flags(call.test_command), *spec.flags] if profile else spec.flags
    try:
        result = run_command(
            [executable, *flags],
            prompt,
            env,
            limits.call_timeout_seconds,
            limits.max_reply_bytes,
            on_start=track,
            cwd=call.project_dir,
            on_output=_watched(call, profile),
        )
    except OSError as exc:
        if exc.errno in _DISK_ERRORS:  # the project's disk, not the agent: no retry helps
            raise unwritable(call.project_dir, exc) from None
        reason = f"could not start '{spec.command}': {exc.strerror or exc}"
        return _failed(FailureKind.UNAVAILABLE, reason)
    finally:
        for pid in started:
            untrack_process(call.project_dir, pid)
    if result.stopped and profile is not None:  # a refused login: no retry helps
        return Attempt(refusal=f"{result.stopped}: {profile.login_hint}, then resume.")
    output = profile.output if profile else spec.output
    stopped = _stopped(result, limits, profile)
    if stopped is not None:
        return stopped
    try:
        answer = normalise(output, result.stdout, result.stderr, call.writes)
    except CliRefusal as exc:
        fix = f"{exc.fix}." if exc.fix else _refusal_fix(spec, call)
        return Attempt(refusal=without_escapes(f"{exc}. {fix}"))
    except CliApiError as exc:
        if exc.login_refused and profile is not None:  # a key no retry makes good
            return Attempt(refusal=f"{exc}. {profile.login_hint}, then resume.")
        return _failed(FailureKind.EXITED, str(exc))
    except AgentOutputError as exc:
        failed = _failure_of(result)  # a CLI that failed before printing its JSON
        return failed if failed is not None else _failed(FailureKind.UNREADABLE, str(exc))
    failed = _failure_of(result)
    if failed is not None:
        return failed
    if not answer:
        return _failed(FailureKind.EMPTY, "empty output" + _stderr_excerpt(result))
    return Attempt(answer=answer)


def _watched(call: AgentCall, profile: CliProfile | None) -> Callable[[bytes], None]:
    """What the agent writes, streamed to the workbench (and read as it comes, for a CLI whose
    events can show a refused login)."""
    watch = (
        watch_claude_stream() if profile is not None and profile.output == "claude_stream" else None
    )

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
            "claude, codex or gemini, then resume."
        )
    command = " ".join(call.test_command or ())
    return (
        f"This step may edit files in the project folder and run `{command}`, nothing else; "
        "give guidance that keeps the agent to that (or fix the test command), then resume."
    )


def _stopped(
    result: ProcessResult, limits: AgentsConfig, profile: CliProfile | None
) -> Attempt | None:
    """A call ThoughtForge stopped: out of time, or an answer too long."""
    if result.timed_out:
        hint = (
            f"; a CLI that is not logged in (a 401) may retry until then: {profile.login_hint}"
            if profile is not None
            else ""
        )
        return _failed(
            FailureKind.TIMED_OUT,
            f"timed out after {limits.call_timeout_seconds:g}s (process group killed){hint}",
        )
    if result.too_large:
        return _failed(
            FailureKind.TOO_LARGE,
            f"answer longer than agents.max_reply_bytes ({limits.max_reply_bytes:,} bytes); "
            "the agent was stopped",
        )
    return None


def _failure_of(result: ProcessResult) -> Attempt | None:
    if result.returncode != 0:
        return _failed(
            FailureKind.EXITED, f"exit code {result.returncode}" + _stderr_excerpt(result)
        )
    if not result.stdout.strip():
        return _failed(FailureKind.EMPTY, "empty output" + _stderr_excerpt(result))
    return None


def _stderr_excerpt(result: ProcessResult) -> str:
    """What the agent said on stderr: often the only clue (`curl: (7) Failed to connect…`)."""
    excerpt = result.stderr.strip()[-_STDERR_EXCERPT:]
    return f": {excerpt}" if excerpt else ""
