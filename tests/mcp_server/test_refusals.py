"""Tool calls an agent may get wrong, over stdio with the SDK's client: each is refused as a tool
error in the CLI's and the page's words, and changes nothing; and a halt decided through a tool."""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

import anyio

from tests.mcp_server.conftest import payload, refusal, stdio_client
from tests.polish_setup import polishing_project
from thoughtforge.config import load_config
from thoughtforge.core.state import read_chat, read_status
from thoughtforge.core.transition import transition
from thoughtforge.mcp_server.transports import INSTRUCTIONS
from thoughtforge.models import HaltReason, Phase


def test_bad_calls_are_refused_in_clear_words_and_a_halt_is_decided_through_a_tool(
    tmp_path: Path, mcp_env: dict[str, str], mcp_config: Callable[..., Path]
) -> None:
    config_file = mcp_config()
    config = load_config(config_file)
    project = polishing_project(config)
    transition(project, Phase.HALTED, halt_reason=HaltReason.GUARD_MAX_ITERATIONS)
    before = read_status(project.dir)
    chat_before = read_chat(project.dir)

    async def drive() -> None:
        async with stdio_client(config_file, mcp_env) as client:
            assert client.server_info is not None
            assert client.server_info.version == version("thoughtforge")
            assert client.instructions == INSTRUCTIONS

            async def refused(tool: str, **arguments: object) -> str:
                return refusal(await client.call_tool(tool, arguments))

            assert "no project 'nope-1234'" in await refused(
                "project_status", project_id="nope-1234"
            )
            assert "is not a project id" in await refused("read_thread", project_id="../etc")
            assert "is not a project id" in await refused(
                "read_document", project_id="../../etc/passwd"
            )
            huge = "x" * 300_000
            assert "200000" in (
                await refused("send_message", project_id=project.id, message=huge)
            ).replace(",", "")
            assert "confirm_terminate" in await refused(
                "decide", project_id=project.id, decision="terminate"
            )
            assert "not possible now" in await refused("distill", project_id=project.id)
            explode = await refused("decide", project_id=project.id, decision="explode")
            assert (
                "decide: bad arguments: decision: Input should be 'resume', 'override' or "
                "'terminate'" in explode
            )
            assert "pydantic" not in explode
            document = await refused("read_document", project_id=project.id, document="secrets")
            assert (
                "document: Input should be 'deliverable', 'spec', 'constraints', 'polish-log' "
                "or 'traceability'" in document
            )
            missing = await refused("send_message", project_id=project.id)
            assert "message: Field required" in missing and "pydantic" not in missing
            assert "budget_usd: Input should be greater than 0" in await refused(
                "spend", project_id=project.id, budget_usd=-5
            )
            assert "give the brain dump as text or as a file" in await refused("create_project")
            assert "cannot read brain_dump_file" in await refused(
                "create_project", brain_dump_file=str(tmp_path / "missing.md")
            )
            assert read_status(project.dir) == before and read_chat(project.dir) == chat_before

            listed = payload(await client.call_tool("list_projects", {}))
            [entry] = listed["projects"]
            assert entry["halt_reason"] == "guard_max_iterations"
            assert entry["halted"] == "guard max iterations"  # the page's words
            status = payload(await client.call_tool("project_status", {"project_id": project.id}))
            assert status["actions_now"] == ["resume", "override", "revise", "terminate"]
            decided = payload(
                await client.call_tool("decide", {"project_id": project.id, "decision": "override"})
            )
            assert decided["delivery"] == "applied" and "done" in decided["note"]

    anyio.run(drive)
    assert read_status(project.dir).phase is Phase.DONE
