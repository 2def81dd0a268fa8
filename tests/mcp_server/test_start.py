"""A fast start: `thoughtforge mcp`, spawned as an agent tool spawns it and asked for its tools,
loads nothing of Prefect, the page, the flows, the phases, the project on disk or the other CLI
commands (an agent tool starts its MCP servers often and waits for the list);
`bench/bench_mcp.py` measures the start beside a one-tool server. What it put off is there at the
first tool call: a transition a tool makes is announced, as a CLI command's is."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

from tests.capture_server import CaptureServer
from tests.conftest import REPO_ROOT
from tests.mcp_server.conftest import payload, stdio_client
from tests.polish_setup import polishing_project
from thoughtforge.config import load_config
from thoughtforge.core.transition import transition
from thoughtforge.models import HaltReason, Phase

THE_ENTRY = """
import atexit, json, sys
modules_file = sys.argv[1]
atexit.register(lambda: open(modules_file, "w").write(json.dumps(sorted(sys.modules))))
sys.argv = ["thoughtforge", "--config", sys.argv[2], "mcp"]
from thoughtforge.cli import main  # the console script's entry
main()
"""
"""The console script, run as it is, writing the modules it loaded as it ends."""
NOT_BEFORE_A_CALL = (
    "prefect",
    "numpy",
    "thoughtforge.web",
    "thoughtforge.flows",
    "thoughtforge.phases",
    "thoughtforge.actions",
    "thoughtforge.stack",
    "thoughtforge.core",
    "thoughtforge.adapters",
    "thoughtforge.mcp_server.tools",
    "thoughtforge.mcp_server.tool_base",
    "thoughtforge.cli.projects",
    "thoughtforge.cli.answers",
    "thoughtforge.cli.chat",
    "thoughtforge.cli.stack",
    "thoughtforge.cli.web",
    "thoughtforge.cli.board",
    "thoughtforge.cli.after_done",
    "thoughtforge.cli.budget",
    "thoughtforge.cli.deployment_run",
)


def test_listing_the_tools_loads_no_pipeline(
    write_config: Callable[..., Path], tmp_path: Path
) -> None:
    modules_file = tmp_path / "modules.json"
    server = StdioServerParameters(
        command=sys.executable,
        args=["-c", THE_ENTRY, str(modules_file), str(write_config())],
        env={"PYTHONPATH": str(REPO_ROOT), "HOME": str(tmp_path)},
    )

    async def list_tools() -> int:
        with anyio.fail_after(60):
            async with Client(server) as client:
                return len((await client.list_tools()).tools)

    assert anyio.run(list_tools) >= 20
    modules = json.loads(modules_file.read_text())
    assert "thoughtforge.cli.mcp" in modules  # the command ran
    loaded = [
        name
        for name in modules
        if any(name == heavy or name.startswith(heavy + ".") for heavy in NOT_BEFORE_A_CALL)
    ]
    assert not loaded, f"loaded before any tool call: {loaded[:10]}"


def test_a_transition_a_tool_makes_is_announced(
    mcp_env: dict[str, str], mcp_config: Callable[..., Path]
) -> None:
    """A halted project overridden over MCP is done, and the configured webhook hears it."""
    with CaptureServer() as channel:
        webhook = {"type": "webhook", "url": f"{channel.url}/hook"}
        config_file = mcp_config(notifications={"enabled": True, "channels": [webhook]})
        project = polishing_project(load_config(config_file))
        transition(project, Phase.HALTED, halt_reason=HaltReason.GUARD_MAX_ITERATIONS)
        arguments = {"project_id": project.id, "decision": "override", "wait_seconds": 0}

        async def decide() -> dict[str, str]:
            with anyio.fail_after(60):
                async with stdio_client(config_file, mcp_env) as client:
                    decided: dict[str, str] = payload(await client.call_tool("decide", arguments))
                    return decided

        assert anyio.run(decide)["delivery"] == "applied"
        heard = [request.json() for request in channel.requests]  # the server drained its courier
    assert [(r["project_id"], r["phase"]) for r in heard] == [(project.id, "done")]
