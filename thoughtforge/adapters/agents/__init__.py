"""Agents are commands (the prompt goes in on stdin, the reply comes out on stdout) or
OpenAI-compatible HTTP endpoints.

`invoke` runs one call from config (retry once within its deadline, then `AgentFailure`):
`agent_call` what the call is for, what an attempt gave and the interface every kind of agent
meets (`AgentKind`),
`command_agent` one attempt of a command; `graceful_stop` lets the call in flight finish when a
run is told to stop, `process` owns the subprocess and its timeout, `http_agent` one chat
completion and its retries (`chat_request` the body sent, `chat_exchange` the response read
within the call's deadline and byte cap, `chat_stream` a streamed reply's events), `kinds` one
module per agent CLI (its switches by the step, how it parses flags, its output, usage, refusals
and overhead), `flag_grammar` how a CLI's parser reads flags, `switches` which switches grant
tools, `output` what every CLI's output reader shares, `call_usage` what a call reports it
used, `call_budget` the budget check before a call and its record after, `call_notes` what a
call tells the log and the chat beyond its reply (what happened inside a CLI), `check` tells
whether an agent can run here, and `scripted` is the demo/test agent (not an AI). Imports
`config`, `errors`, `core` and the prompting's token estimate only.

The names below load on first use: `scripted` runs as its own process for every call of the demo
agent, and importing this package must not make each of those pay for the agent layer.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from thoughtforge.adapters.agents.agent_call import AgentCall
    from thoughtforge.adapters.agents.check import (
        AgentState,
        agent_state,
        describe_agent,
        missing_agent_warning,
        warn_if_missing,
        why_not_logged_in,
        why_unavailable,
    )
    from thoughtforge.adapters.agents.command_agent import find_command
    from thoughtforge.adapters.agents.invoke import invoke_agent, use_call_slots

_HOMES = {
    "AgentCall": "agent_call",
    "find_command": "command_agent",
    "invoke_agent": "invoke",
    "use_call_slots": "invoke",
    "AgentState": "check",
    "agent_state": "check",
    "missing_agent_warning": "check",
    "why_unavailable": "check",
    "why_not_logged_in": "check",
    "describe_agent": "check",
    "warn_if_missing": "check",
}
__all__ = [
    "AgentCall",
    "AgentState",
    "agent_state",
    "describe_agent",
    "find_command",
    "invoke_agent",
    "missing_agent_warning",
    "use_call_slots",
    "warn_if_missing",
    "why_not_logged_in",
    "why_unavailable",
]


def __getattr__(name: str) -> object:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
