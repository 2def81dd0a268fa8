"""`thoughtforge mcp --http`: the SDK's client over streamable HTTP with the bearer token; a
forged Host, another site's Origin and a missing or wrong token are refused before MCP."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from importlib.metadata import version
from pathlib import Path

import anyio
import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.mcp_server.conftest import payload, refusal
from tests.vibe_kanban import free_port
from thoughtforge.mcp_server.transports import http_token

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "0"},
    },
}


@pytest.fixture
def http_server(
    mcp_env: dict[str, str], mcp_config: Callable[..., Path]
) -> Iterator[tuple[str, Path]]:
    config = mcp_config()
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "thoughtforge",
            "--config",
            str(config),
            "mcp",
            "--http",
            "--port",
            str(port),
        ],
        env=mcp_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert f"127.0.0.1:{port}/mcp" in line, line
        url = f"http://127.0.0.1:{port}/mcp"
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                httpx.get(url, timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        yield url, config
    finally:
        process.terminate()
        process.wait(10)


def test_the_http_transport_refuses_a_forged_host_another_origin_and_a_missing_token(
    http_server: tuple[str, Path],
) -> None:
    url, config = http_server
    token = http_token(config)
    port = url.split(":")[2].split("/")[0]
    json_headers = {"Accept": "application/json, text/event-stream"}
    forged = httpx.post(
        url,
        json=INIT,
        headers={
            **json_headers,
            "Host": f"evil.example:{port}",
            "Authorization": f"Bearer {token}",
        },
    )
    assert forged.status_code == 421 and "evil.example" in forged.text
    no_token = httpx.post(url, json=INIT, headers=json_headers)
    assert no_token.status_code == 401 and "bearer token" in no_token.text
    wrong = httpx.post(url, json=INIT, headers={**json_headers, "Authorization": "Bearer guess"})
    assert wrong.status_code == 401
    other_site = httpx.post(
        url,
        json=INIT,
        headers={
            **json_headers,
            "Authorization": f"Bearer {token}",
            "Origin": "http://evil.example",
        },
    )
    assert other_site.status_code == 403
    assert (config.parent / ".thoughtforge" / "mcp-token").stat().st_mode & 0o077 == 0

    async def use() -> None:
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            listed = payload(await client.call_tool("list_projects", {}))
            assert listed["projects"] == []
            assert client.server_info is not None and client.server_info.version == version(
                "thoughtforge"
            )
            wrong = refusal(
                await client.call_tool("decide", {"project_id": "x-1", "decision": "maybe"})
            )
            assert "decision: Input should be 'resume', 'override' or 'terminate'" in wrong
            assert "pydantic" not in wrong
            assert "no project 'x-1'" in refusal(
                await client.call_tool("spend", {"project_id": "x-1"})
            )
            said = refusal(
                await client.call_tool("send_message", {"project_id": "../x", "message": "hi"})
            )
            assert "is not a project id" in said

    anyio.run(use)


def test_an_empty_token_file_is_replaced_by_a_new_token(tmp_path: Path) -> None:
    """An emptied `mcp-token` would make the server refuse every request while it names the
    empty token as the one to send: it is taken as missing."""
    config_file = tmp_path / "config.yaml"
    kept = tmp_path / ".thoughtforge" / "mcp-token"
    kept.parent.mkdir()
    kept.write_text("\n")
    token = http_token(config_file)
    assert len(token) >= 32 and kept.read_text() == token
    assert http_token(config_file) == token  # then kept


def test_a_message_over_the_cap_is_answered_413_unread(http_server: tuple[str, Path]) -> None:
    """As over stdio: answered with the cap, never read whole (before, it was read whole)."""
    from thoughtforge.mcp_server.stdio_transport import MAX_LINE_CHARS

    url, config = http_server
    headers = {
        "Accept": "application/json, text/event-stream",
        "Authorization": f"Bearer {http_token(config)}",
    }
    call = {"name": "create_project", "arguments": {"brain_dump": "x" * (MAX_LINE_CHARS + 10)}}
    huge = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}
    refused = httpx.post(url, json=huge, headers=headers, timeout=60)
    assert refused.status_code == 413 and f"{MAX_LINE_CHARS:,} characters" in refused.text
