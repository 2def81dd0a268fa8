"""`ask_person` over stdio with the SDK's client acting as a host that can ask the person: the
tool answers `input_required` (MCP 2026-07-28) with ThoughtForge's question, the client's
elicitation callback is the person, and their answer goes into the project; a client that
cannot ask is told to relay the question itself."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.types import ElicitResult

from tests.mcp_server.conftest import payload, refusal, stdio_client
from tests.polish_setup import polishing_project
from thoughtforge.config import load_config
from thoughtforge.core.state import read_status
from thoughtforge.core.transition import transition
from thoughtforge.models import HaltReason, Phase


def test_the_host_asks_the_person_and_their_decision_reaches_the_project(
    mcp_env: dict[str, str], mcp_config: Callable[..., Path]
) -> None:
    config_file = mcp_config()
    project = polishing_project(load_config(config_file))
    transition(project, Phase.HALTED, halt_reason=HaltReason.GUARD_MAX_ITERATIONS)
    asked: list[Any] = []

    async def person(context: Any, params: Any) -> ElicitResult:
        asked.append(params)
        if len(asked) == 1:
            return ElicitResult(action="decline")  # not now
        return ElicitResult(action="accept", content={"action": "override"})

    async def drive() -> None:
        async with stdio_client(config_file, mcp_env) as plain:
            told = refusal(await plain.call_tool("ask_person", {"project_id": project.id}))
            assert "cannot ask the person" in told and "decide" in told
        server = StdioServerParameters(
            command=plain.server.command,  # type: ignore[union-attr]
            args=plain.server.args,  # type: ignore[union-attr]
            env=mcp_env,
        )
        async with Client(server, elicitation_callback=person) as host:
            assert host.protocol_version >= "2026-07-28"  # asked through input_required
            declined = refusal(await host.call_tool("ask_person", {"project_id": project.id}))
            assert "the person did not answer (decline): nothing was sent" in declined
            assert read_status(project.dir).phase is Phase.HALTED
            decided = payload(
                await host.call_tool("ask_person", {"project_id": project.id, "wait_seconds": 0})
            )
            assert decided["delivery"] == "applied" and "done" in decided["note"], decided
            again = refusal(await host.call_tool("ask_person", {"project_id": project.id}))
            assert "asks nothing of the person now" in again and "call revise" in again

    anyio.run(drive)
    question = asked[-1]
    assert len(asked) == 2 and asked[0].message == question.message
    assert question.message.startswith(f"{project.id}: Halted (guard max iterations")
    assert "override to accept" in question.message
    assert "action" in question.requested_schema["properties"]
    assert read_status(project.dir).phase is Phase.DONE
