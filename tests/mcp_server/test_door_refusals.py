"""MCP's door refuses what the flow would refuse and answers every request: a budget given as
`"5"` or `true` is refused (it was taken as $5 and $1), and a message over the line cap, a
request or the person's answer to `ask_person`, is answered with an error naming the cap (before,
no answer came at all and the client waited forever)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.types import ElicitResult

from tests.mcp_server.conftest import payload, refusal, stdio_client
from tests.mcp_server.test_stdio_lifecycle import _send, _session
from tests.polish_setup import polishing_project
from thoughtforge.config import load_config
from thoughtforge.core.spend.ledger import read_usage
from thoughtforge.core.transition import transition
from thoughtforge.mcp_server.stdio_transport import MAX_LINE_CHARS
from thoughtforge.models import HaltReason, Phase

SECONDS = 60.0


def test_a_budget_is_a_json_number_not_a_string_or_a_boolean(
    mcp_env: dict[str, str], mcp_config: Callable[..., Path]
) -> None:
    config_file = mcp_config()
    project = polishing_project(load_config(config_file))

    async def drive() -> None:
        async with stdio_client(config_file, mcp_env) as client:
            for wrong in ("5", True):
                said = refusal(
                    await client.call_tool("spend", {"project_id": project.id, "budget_usd": wrong})
                )
                assert "budget_usd: takes" in said and "number" in said, said
            assert "confirm_terminate: takes boolean" in refusal(
                await client.call_tool(
                    "decide",
                    {"project_id": project.id, "decision": "resume", "confirm_terminate": 1},
                )
            )
            payload(await client.call_tool("spend", {"project_id": project.id, "budget_usd": 5}))

    anyio.run(drive)
    assert read_usage(project.dir).budget.max_usd == 5  # type: ignore[union-attr]


def _answer_within(stream: IO[bytes], wanted: int, seconds: float) -> dict[str, Any]:
    """The message answering `wanted`, failing (not hanging) when none comes in time."""
    found: list[dict[str, Any]] = []

    def read() -> None:
        for line in stream:
            message = json.loads(line)
            if message.get("id") == wanted:
                found.append(message)
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(seconds)
    assert found, f"no answer to request {wanted} in {seconds} s"
    return found[0]


@pytest.mark.parametrize("id_at", ["head", "tail"])
def test_a_request_over_the_line_cap_is_answered_with_an_error_naming_the_cap(
    mcp_env: dict[str, str], mcp_config: Callable[..., Path], id_at: str
) -> None:
    huge = "x" * (MAX_LINE_CHARS + 1000)
    call = {"name": "create_project", "arguments": {"brain_dump": huge}}
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": "tools/call", "params": call}
    message = {"id": 7, **message} if id_at == "head" else {**message, "id": 7}
    with _session(mcp_config(), mcp_env) as server:
        assert server.stdin is not None and server.stdout is not None
        _send(server.stdin, message)
        answer = _answer_within(server.stdout, 7, SECONDS)
        assert f"{MAX_LINE_CHARS:,} characters" in answer["error"]["message"]
        _send(server.stdin, {"jsonrpc": "2.0", "id": 8, "method": "ping"})
        assert _answer_within(server.stdout, 8, SECONDS)["result"] == {}


def test_a_persons_answer_over_the_cap_is_refused_and_the_tool_answers(
    mcp_env: dict[str, str], mcp_config: Callable[..., Path]
) -> None:
    """Before, `ask_person` answered with 5 MB got no answer at all."""
    config_file = mcp_config()
    project = polishing_project(load_config(config_file))
    transition(project, Phase.HALTED, halt_reason=HaltReason.GUARD_MAX_ITERATIONS)

    async def person(context: Any, params: Any) -> ElicitResult:
        return ElicitResult(
            action="accept", content={"action": "resume", "message": "y" * 5_000_000}
        )

    async def drive() -> None:
        async with stdio_client(config_file, mcp_env) as plain:
            command, args = plain.server.command, plain.server.args  # type: ignore[union-attr]
        server = StdioServerParameters(command=command, args=args, env=mcp_env)
        async with Client(server, elicitation_callback=person) as host:
            with anyio.fail_after(SECONDS):
                try:
                    said = refusal(await host.call_tool("ask_person", {"project_id": project.id}))
                except Exception as exc:  # noqa: BLE001 - a JSON-RPC error is raised, not returned
                    said = str(exc)
            assert f"{MAX_LINE_CHARS:,} characters" in said, said
            assert payload(await host.call_tool("list_projects", {})) is not None

    anyio.run(drive)
