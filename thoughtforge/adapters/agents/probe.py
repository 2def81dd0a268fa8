"""`doctor --probe`: call an agent once with a tiny prompt, the way a step would.

A configured agent is not a working one: a command can be on PATH and not logged in, a server can
listen and have no model loaded, or refuse the structured-output form its entry names. The probe
goes through `invoke_agent` (one attempt), so it meets exactly what a run would meet, in a
throw-away git repository instead of a project (a project folder is one, and Codex refuses to
run outside a repository it does not trust).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from pydantic import BaseModel

from thoughtforge.adapters.agents.agent_call import AgentCall
from thoughtforge.adapters.agents.invoke import invoke_agent
from thoughtforge.config import Config, OpenAIAgentSpec
from thoughtforge.core.git_repo import init_repo
from thoughtforge.errors import AgentFailure, UnusableReply
from thoughtforge.prompting.json_extraction import json_objects

STEP = "doctor-probe"
PROMPT = 'Reply with one word: ready. If you are asked for JSON, reply {"ready": true}.'
SCHEMA = {
    "type": "object",
    "properties": {"ready": {"type": "boolean"}},
    "required": ["ready"],
}


class ProbeResult(BaseModel):
    replied: bool
    seconds: float
    detail: str
    structured: bool | None = None
    """For an HTTP agent that sends a schema: whether the server took it and the reply fit."""


def probe_agent(config: Config, agent: str) -> ProbeResult:
    """One plain call, and for an HTTP agent with structured output one schema-constrained call."""
    with tempfile.TemporaryDirectory(prefix="thoughtforge-probe-") as folder:
        init_repo(Path(folder))
        call = AgentCall(step=STEP, project_dir=Path(folder), phase="doctor")
        started = time.monotonic()
        try:
            reply = invoke_agent(config, agent, PROMPT, call, attempts=1)
        except AgentFailure as exc:
            return ProbeResult(replied=False, seconds=time.monotonic() - started, detail=str(exc))
        seconds = time.monotonic() - started
        detail = f"replied in {seconds:.1f} s: {' '.join(reply.split())[:60]!r}"
        spec = config.agent(agent)
        if not isinstance(spec, OpenAIAgentSpec) or spec.structured_output == "none":
            return ProbeResult(replied=True, seconds=seconds, detail=detail)
        schema_call = call.model_copy(update={"reply_schema": SCHEMA})
        structured, why = _structured(config, agent, schema_call)
        form = f"structured output ({spec.structured_output})"
        detail += f"; {form} accepted" if structured else f"; {form} not usable: {why}"
        return ProbeResult(replied=True, seconds=seconds, detail=detail, structured=structured)


def _structured(config: Config, agent: str, call: AgentCall) -> tuple[bool, str]:
    try:
        reply = invoke_agent(config, agent, PROMPT, call, attempts=1)
    except AgentFailure as exc:
        return False, str(exc)
    try:
        fits = any("ready" in found for found in json_objects(reply))
    except UnusableReply:
        fits = False
    return (True, "") if fits else (False, f"the reply is not the schema's JSON: {reply[:60]!r}")
