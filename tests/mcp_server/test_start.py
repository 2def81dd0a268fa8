"""A fast start: building the server and listing its tools loads nothing of Prefect, the page,
the flows or the phases (an agent tool starts its MCP servers often and waits for the list);
`bench/bench_mcp.py` measures the start beside a one-tool server."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.conftest import REPO_ROOT

LISTING = """
import asyncio, json, sys
from pathlib import Path
from thoughtforge.cli import app  # what `thoughtforge mcp` loads first
from thoughtforge.config import load_config
from thoughtforge.mcp_server.transports import build_server
config_file = Path(sys.argv[1])
server = build_server(config_file, load_config(config_file))
tools = asyncio.run(server.list_tools())
print(json.dumps([len(tools), sorted(sys.modules)]))
"""
NOT_BEFORE_A_CALL = (
    "prefect",
    "thoughtforge.web",
    "thoughtforge.flows",
    "thoughtforge.phases",
    "thoughtforge.actions",
    "thoughtforge.mcp_server.tools",
    "numpy",
)


def test_listing_the_tools_loads_no_pipeline(write_config: Callable[..., Path]) -> None:
    config_file = write_config()
    shown = subprocess.run(
        [sys.executable, "-c", LISTING, str(config_file)],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO_ROOT,
        timeout=120,
    )
    count, modules = json.loads(shown.stdout.strip().splitlines()[-1])
    assert count >= 20
    loaded = [
        name
        for name in modules
        if name.split(".")[0] == "prefect"
        or any(name == heavy or name.startswith(heavy + ".") for heavy in NOT_BEFORE_A_CALL)
    ]
    assert not loaded, f"loaded before any tool call: {loaded[:10]}"
