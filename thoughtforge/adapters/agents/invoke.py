"""The agent layer: call an agent from config, retry once, then raise `AgentFailure`.

Two kinds sit behind this one interface: a command (prompt on stdin, reply on stdout; every call
tells it what is being asked through environment variables, so any executable, a real agent CLI or
a scripted one, can serve) and an OpenAI-compatible HTTP endpoint (`http_agent`). Both are recorded
as the call in flight, stream what they write into the project, and get the same retry rules.

A prompt that does not fit the agent's window, with its reply's room kept, is refused before any
call (`PromptTooLarge`): sending it would only have the model cut or ramble.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext

from thoughtforge.adapters.agents.agent_call import AgentCall, AgentKind
from thoughtforge.adapters.agents.call_budget import check_budget, record_call
from thoughtforge.adapters.agents.call_notes import tell_inside
from thoughtforge.adapters.agents.call_usage import measuring, of_call
from thoughtforge.adapters.agents.command_agent import CommandAgent
from thoughtforge.adapters.agents.graceful_stop import agent_call, take_next_step
from thoughtforge.adapters.agents.http_agent import HttpAgent
from thoughtforge.adapters.agents.image_parts import (
    ImageRefused,
    image_tokens,
    load_image,
    sends_images,
)
from thoughtforge.adapters.agents.kinds import cli_names
from thoughtforge.adapters.agents.launch import grants_of
from thoughtforge.config import AgentSpec, CommandAgentSpec, Config, OpenAIAgentSpec
from thoughtforge.core.agent_activity import AgentActivity, begin_call, end_call
from thoughtforge.core.project_log import log_event
from thoughtforge.core.state import utc_now
from thoughtforge.errors import (
    AgentFailure,
    AgentRefused,
    AttemptFailure,
    FailureKind,
    PromptTooLarge,
    ReplyCutOff,
)
from thoughtforge.prompting.context_window import estimate_tokens

ATTEMPTS = 2


def agent_kind(agent: str, spec: AgentSpec, images: list[tuple[bytes, str]]) -> AgentKind:
    """The agent as the retry loop calls it: an HTTP endpoint (sent `images`), or a command."""
    if isinstance(spec, OpenAIAgentSpec):
        return HttpAgent(agent, spec, images)
    return CommandAgent(spec)


def overhead_tokens(spec: AgentSpec) -> int:
    """What the agent adds to every prompt of its own (a CLI's system prompt and tools)."""
    return agent_kind("", spec, []).overhead_tokens()


def prompt_room(spec: AgentSpec) -> int:
    """What of an agent's window a prompt may take: all but the reply's room and what its CLI
    adds to every prompt (the measure `invoke` refuses a prompt by)."""
    return spec.prompt_budget_tokens - overhead_tokens(spec)


def _refuse_tools_on_a_text_step(agent: str, spec: AgentSpec, call: AgentCall) -> None:
    """A text step never runs with tools: an entry whose own flags grant them is refused before
    the first call, whatever the phase (a plan project's intake included)."""
    if call.writes or not isinstance(spec, CommandAgentSpec):
        return
    granted = grants_of(spec)
    if not granted:
        return
    fix = (
        "its profile already grants edits to code build and fix steps only"
        if spec.profile
        else f"set agents.available.{agent}.profile to {cli_names()}, and ThoughtForge "
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
    """The agent's reply as plain text; `AgentFailure` after `attempts` failed attempts.

    The attempts share the call's deadline (`agents.call_timeout_seconds`, the agent's own
    retries inside it included): a retry gets what is left of it, and none is made once it is
    spent. The agent works in the project directory, the only place ThoughtForge lets it write.
    A caller whose agent writes files passes `attempts=1` and retries itself, after undoing what
    the failed attempt left.
    """
    spec = config.agent(agent)
    _refuse_tools_on_a_text_step(agent, spec, call)
    images = _images_for(spec, call)
    kind = agent_kind(agent, spec, images)
    tokens = (
        estimate_tokens(prompt)
        + sum(image_tokens(data, mime) for data, mime in images)
        + kind.overhead_tokens()
    )
    if tokens > spec.prompt_budget_tokens:
        raise PromptTooLarge(agent, call.step, tokens, spec.context_window_tokens, spec.max_tokens)
    failures: list[AttemptFailure] = []
    spent = 0.0
    for attempt in range(1, attempts + 1):
        left = config.agents.call_timeout_seconds - spent
        if failures and (left <= 0 or failures[-1].kind is FailureKind.TIMED_OUT):
            break  # the call's deadline is spent: a retry would only pass it
        limits = config.agents.model_copy(update={"call_timeout_seconds": left})
        check_budget(config, agent, call.project_dir, tokens)  # each attempt is paid for
        # A run told to stop starts no call (nor a retry); the call in flight may finish.
        # Waiting for a slot is not the agent's time; what the reply reports it used is metered.
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
                result = kind.attempt(prompt, call, limits, attempt)
            finally:
                end_call(call.project_dir)
            seconds = time.monotonic() - started
            spent += seconds
        used = of_call(usage, prompt, result.reply)
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
        tell_inside(call.project_dir, call.phase, agent, call.step, result.inside)
        if result.refusal:
            raise AgentRefused(f"agent '{agent}' at step '{call.step}': {result.refusal}")
        if result.failure is None:
            return result.reply
        failures.append(result.failure)
    take_next_step()  # a stop asked for meanwhile stops the run: its `continue` calls again
    if all(failure.kind is FailureKind.CUT_OFF for failure in failures):
        raise ReplyCutOff(agent, call.step, failures)
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
