"""A plan project from brain dump to done, its distillation edited on the way, then revised,
driven only through MCP tools over stdio."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from tests.conftest import BRAIN_DUMP
from tests.mcp_server.conftest import payload, refusal, stdio_client
from tests.polish_setup import polishing_project
from thoughtforge.config import load_config
from thoughtforge.core.state import read_status
from thoughtforge.core.transition import transition
from thoughtforge.core.waiting import current_wait
from thoughtforge.models import HaltReason, Phase
from thoughtforge.stack.api import PrefectApi

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
            assert "distill" in created["next"]
            listed = payload(await client.call_tool("list_projects", {}))
            assert [p["project_id"] for p in listed["projects"]] == [project_id]
            early = refusal(
                await client.call_tool("confirm", {"project_id": project_id, "wait_seconds": 60})
            )  # the run asks for the brain dump first: confirm is not what it waits for
            assert "Confirm is not possible now. Waiting for more detail, or distill" in early
            said = payload(
                await client.call_tool(
                    "send_message",
                    {
                        "project_id": project_id,
                        "message": "The budget is firm.",
                        "wait_seconds": 60,
                    },
                )
            )
            # handed to the run, or kept for its next call if it was between two waits
            assert said["delivery"] in ("handed_over", "queued"), said
            thread = payload(
                await client.call_tool("read_thread", {"project_id": project_id, "last": 1})
            )
            assert [(m["role"], m["content"]) for m in thread] == [("human", "The budget is firm.")]

            distilled = payload(
                await client.call_tool("distill", {"project_id": project_id, "wait_seconds": 120})
            )
            assert distilled["reply_complete"], distilled
            assert any("## " in reply["content"] for reply in distilled["replies"])
            draft = payload(await client.call_tool("read_draft", {"project_id": project_id}))
            assert draft["kind"] == "distillation"
            assert draft["text"] == distilled["replies"][-1]["content"]
            first_section_end = draft["text"].index("\n## ", 1)  # not Open Questions
            edited = (
                draft["text"][:first_section_end]
                + "\nEvery guest gets a printed map.\n"
                + draft["text"][first_section_end:]
            )
            stale = refusal(
                await client.call_tool(
                    "edit_draft",
                    {"project_id": project_id, "text": edited, "version": "0" * 16},
                )
            )
            assert "replaced" in stale or "changed" in stale, stale
            intent = payload(
                await client.call_tool(
                    "edit_draft",
                    {
                        "project_id": project_id,
                        "text": edited,
                        "version": draft["version"],
                        "confirm": True,
                        "wait_seconds": 120,
                    },
                )
            )
            assert intent["delivery"] == "handed_over" and intent["reply_complete"], intent
            assert intent["replies"], "the spec proposal that follows the edited intent"
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
            assert "not possible now" in again and "call revise" in again

            revised = payload(
                await client.call_tool(
                    "revise",
                    {
                        "project_id": project_id,
                        "change": "The budget is 12k now, not 15k.",
                        "wait_seconds": 300,
                    },
                )
            )
            assert revised["reply_complete"], revised
            assert any("## " in reply["content"] for reply in revised["replies"]), revised
            now = payload(await client.call_tool("project_status", {"project_id": project_id}))
            assert now["phase"] == "spec_building" and "confirm" in now["actions_now"], now
            assert now["revision"] == 2

    anyio.run(drive)
    [project] = (tmp_path / "projects").iterdir()
    assert read_status(project).phase is Phase.SPEC_BUILDING  # revision 2 awaits its confirm


def test_a_halt_a_run_waits_on_is_decided_through_a_tool_and_the_run_ends(
    tmp_path: Path, mcp_env_with_prefect: dict[str, str], mcp_config: Callable[..., Path]
) -> None:
    """The run was started elsewhere (`thoughtforge continue` in a terminal): it meets the halt
    and asks for a decision, which an agent tool gives."""
    config_file = mcp_config()
    project = polishing_project(load_config(config_file))
    transition(project, Phase.HALTED, halt_reason=HaltReason.GUARD_MAX_ITERATIONS)
    command = ["-m", "thoughtforge", "--config", str(config_file), "continue", project.id]
    output = tmp_path / "run.log"
    run = subprocess.Popen(
        [sys.executable, *command],
        env=mcp_env_with_prefect,
        stdout=output.open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:

        async def drive() -> None:
            async with stdio_client(config_file, mcp_env_with_prefect) as client:
                arguments = {"project_id": project.id}
                api = PrefectApi(mcp_env_with_prefect["PREFECT_API_URL"])
                for _ in range(240):  # the run starts, finds the halt and asks for a decision
                    if current_wait(project.dir) and api.waiting_run(project.id):
                        break
                    await anyio.sleep(0.25)
                status = payload(await client.call_tool("project_status", arguments))
                assert status["note"].startswith("Waiting for a decision on the halted polish loop")
                assert "raise polish.max_iterations" in status["note"]  # what the person can do
                decided = payload(
                    await client.call_tool(
                        "decide", {**arguments, "decision": "override", "wait_seconds": 60}
                    )
                )
                assert decided["delivery"] == "handed_over", (decided, output.read_text())
                assert decided["reply_complete"], decided

        anyio.run(drive)
        assert run.wait(timeout=120) == 0, "the run ends once the project is done"
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
    assert read_status(project.dir).phase is Phase.DONE
