"""A plan project from brain dump to done, driven only through MCP tools over stdio."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from tests.conftest import BRAIN_DUMP
from tests.mcp_server.conftest import payload, refusal, stdio_client
from thoughtforge.core import read_status
from thoughtforge.models import Phase

pytestmark = pytest.mark.slow  # about two minutes: four phases with a run in a process of its own


def test_a_plan_project_goes_from_create_to_done_through_mcp_tools(
    tmp_path: Path, mcp_env_with_prefect: dict[str, str], mcp_config: Callable[..., Path]
) -> None:
    config = mcp_config()

    async def drive() -> None:
        async with stdio_client(config, mcp_env_with_prefect) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert {"create_project", "distill", "confirm", "decide", "read_document"} <= names
            created = payload(await client.call_tool("create_project", {"brain_dump": BRAIN_DUMP}))
            project_id = created["project_id"]
            listed = payload(await client.call_tool("list_projects", {}))
            assert [p["project_id"] for p in listed["projects"]] == [project_id]

            distilled = payload(
                await client.call_tool("distill", {"project_id": project_id, "wait_seconds": 120})
            )
            assert distilled["reply_complete"], distilled
            assert any("## " in reply["content"] for reply in distilled["replies"])
            intent = payload(
                await client.call_tool("confirm", {"project_id": project_id, "wait_seconds": 120})
            )
            assert intent["reply_complete"], intent
            spec = payload(
                await client.call_tool("confirm", {"project_id": project_id, "wait_seconds": 300})
            )
            assert spec["reply_complete"], spec
            status = payload(await client.call_tool("project_status", {"project_id": project_id}))
            assert status["phase"] == "done", status
            plan = payload(await client.call_tool("read_document", {"project_id": project_id}))
            assert "budget" in plan.lower()
            resource = await client.read_resource(
                f"thoughtforge://projects/{project_id}/deliverable"
            )
            assert resource.contents[0].text == plan  # type: ignore[union-attr]
            record = payload(
                await client.call_tool("read_polish_record", {"project_id": project_id})
            )
            assert record["iterations"] and record["trajectory"]
            again = refusal(await client.call_tool("confirm", {"project_id": project_id}))
            assert "not possible now" in again

    anyio.run(drive)
    [project] = (tmp_path / "projects").iterdir()
    assert read_status(project).phase is Phase.DONE
