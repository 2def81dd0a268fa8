"""Files an MCP client names are read only when they are regular files under their cap: a
device, a FIFO or a huge file is refused unread, in the tool's error."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import anyio

from tests.mcp_server.conftest import refusal, stdio_client


def test_create_project_refuses_a_device_a_fifo_or_a_huge_file_unread(
    tmp_path: Path, mcp_env: dict[str, str], mcp_config: Callable[..., Path]
) -> None:
    config_file = mcp_config()
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # opened for reading, it would wait for a writer forever
    huge = tmp_path / "huge.md"
    with huge.open("wb") as sparse:
        sparse.truncate(64 * 1024 * 1024)

    async def drive() -> None:
        async with stdio_client(config_file, mcp_env) as client:
            for path, words in (
                ("/dev/zero", "not a regular file"),
                (str(fifo), "not a regular file"),
                (str(huge), "over its cap"),
            ):
                started = time.monotonic()
                said = refusal(await client.call_tool("create_project", {"brain_dump_file": path}))
                assert words in said and time.monotonic() - started < 10, said
            said = refusal(
                await client.call_tool(
                    "create_project", {"brain_dump": "a plan", "resources": ["/dev/zero"]}
                )
            )
            assert "not a regular file" in said

    anyio.run(drive)
    assert not list((tmp_path / "projects").glob("*"))
