"""The agent layer: call an agent from config, retry once, then raise `AgentFailure`.

Two kinds sit behind this one interface: a command (prompt on stdin, answer on stdout; every call
tells it what is being asked through environment variables, so any executable, a real agent CLI or
a scripted one, can serve) and an OpenAI-compatible HTTP endpoint (`http_agent`). Both are recorded
as the call in flight, stream what they write into the project, and get the same retry rules.

A prompt that does not fit the agent's window, with its answer's room kept, is refused before any
call (`PromptTooLarge`): sending it would only have the model cut or ramble.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from thoughtforge.adapters.agents.agent_call import AgentCall, Attempt, failed
from thoughtforge.adapters.agents.call_budget import check_budget, record_call
from thoughtforge.adapters.agents.call_usage import measuring, of_call
from thoughtforge.adapters.agents.command_agent import profile_for, run_command_agent
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
from thoughtforge.adapters.agents.launch import grants_of
from thoughtforge.config import AgentsConfig, AgentSpec, CommandAgentSpec, Config, OpenAIAgentSpec
from thoughtforge.core import log_event, utc_now
from thoughtforge.core.agent_activity import AgentActivity, begin_call, end_call, stream_output
from thoughtforge.errors import (
    AgentFailure,
    AgentRefused,
    AnswerCutOff,
    AttemptFailure,
    FailureKind,
    PromptTooLarge,
)
from thoughtforge.prompting.context_window import estimate_tokens

ATTEMPTS = 2
TEMPERATURE_STEP = 0.3
"""An HTTP agent's temperature rises by this at each re-ask and retry: at temperature 0 the same
prompt gets the same answer, and a re-ask must be able to get another one."""
MAX_TEMPERATURE = 1.2


def overhead_tokens(spec: AgentSpec) -> int:
    """What the agent adds to every prompt of its own (a CLI's system prompt and tools)."""
    profile = profile_for(spec)
    return 0 if profile is None else profile.overhead_tokens


def prompt_room(spec: AgentSpec) -> int:
    """What of an agent's window a prompt may take: all but the answer's room and what its CLI
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
                    result = run_command_agent(spec, prompt, call, config.agents)
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
    return failed(FailureKind.REFUSED, refused) if refused else Attempt(failure=answer.failure)
