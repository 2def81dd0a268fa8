"""The MCP server as an agent tool meets it: `thoughtforge mcp` spawned over stdio by the SDK's
own client, against the real Prefect test server, with the scripted demo agent."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult

from tests.conftest import REPO_ROOT, config_data


@pytest.fixture
def mcp_env(tmp_path: Path) -> dict[str, str]:
    """The server's environment with no Prefect server (the config's answers nowhere)."""
    return {
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "PREFECT_HOME": str(tmp_path / ".prefect"),
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PYTHONPATH": str(REPO_ROOT),
    }


@pytest.fixture
def mcp_env_with_prefect(mcp_env: dict[str, str], prefect_api_url: str) -> dict[str, str]:
    return {**mcp_env, "PREFECT_API_URL": prefect_api_url}


@pytest.fixture
def mcp_config(tmp_path: Path) -> Iterator[Callable[..., Path]]:
    """Writes the config; after the test, stops every run the MCP server started that still
    runs (a run paused at a question waits forever)."""
    written: list[Path] = []

    def write(**sections: Any) -> Path:
        path = tmp_path / "config.yaml"
        path.write_text(yaml.safe_dump(config_data(tmp_path, **sections)))
        written.append(path)
        return path

    yield write
    for pid_file in (tmp_path / ".thoughtforge" / "mcp-runs").glob("*.pid"):
        with contextlib.suppress(OSError, ValueError):
            os.killpg(int(pid_file.read_text()), signal.SIGKILL)


@asynccontextmanager
async def stdio_client(config: Path, env: dict[str, str]) -> AsyncIterator[Client]:
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "thoughtforge", "--config", str(config), "mcp"],
        env=env,
    )
    async with Client(server) as client:
        yield client


def payload(result: CallToolResult) -> Any:
    """A tool's answer as data (the structured result, else its text as JSON or text)."""
    assert not result.is_error, result.content[0].text  # type: ignore[union-attr]
    if result.structured_content is not None:
        content = result.structured_content
        return content.get("result", content) if set(content) == {"result"} else content
    text = result.content[0].text  # type: ignore[union-attr]
    try:
        return json.loads(text)
    except ValueError:
        return text


def refusal(result: CallToolResult) -> str:
    assert result.is_error, result
    return " ".join(part.text for part in result.content)  # type: ignore[union-attr]
