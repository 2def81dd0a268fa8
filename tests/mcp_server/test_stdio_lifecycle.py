"""`thoughtforge mcp` over stdio as a host can leave it: the host closes stdin while a tool
waits (the server must end), or never reads stdout while it keeps asking (the server must stop
reading, not grow)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import pytest

from thoughtforge.config import load_config
from thoughtforge.core.creation import create_project
from thoughtforge.core.run_lock import hold_run_lock

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


@contextmanager
def _session(config: Path, env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    """`thoughtforge mcp` spawned and initialized over raw pipes; killed at the end."""
    server = subprocess.Popen(
        [sys.executable, "-m", "thoughtforge", "--config", str(config), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert server.stdin is not None and server.stdout is not None
    try:
        _send(server.stdin, INITIALIZE)
        _answer(server.stdout, 0)
        _send(server.stdin, INITIALIZED)
        yield server
    finally:
        server.kill()
        server.wait()


def _send(stream: IO[bytes], message: dict[str, Any]) -> None:
    stream.write(json.dumps(message).encode() + b"\n")
    stream.flush()


def _answer(stream: IO[bytes], wanted: int) -> dict[str, Any]:
    while True:
        message = json.loads(stream.readline())
        if message.get("id") == wanted:
            return dict(message)


def _rss_kb(pid: int, field: str = "VmRSS") -> int:
    """The process's resident memory now (or at its peak: `VmHWM`), in kB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    raise AssertionError(f"no {field}")


def test_closing_stdin_ends_the_server_though_a_tool_still_waits(
    mcp_env: dict[str, str], mcp_config: Callable[..., Path]
) -> None:
    config_file = mcp_config()
    project = create_project(load_config(config_file), brain_dump="a plan")
    with _session(config_file, mcp_env) as server:
        assert server.stdin is not None
        with hold_run_lock(project):  # a run works: `distill` waits up to wait_seconds for it
            call = {"project_id": project.id, "wait_seconds": 300}
            _send(
                server.stdin,
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "tools/call",
                    "params": {"name": "distill", "arguments": call},
                },
            )
            time.sleep(2)  # the tool is waiting now
            assert server.poll() is None
            closed = time.monotonic()
            server.stdin.close()
            server.wait(timeout=20)
            assert time.monotonic() - closed < 10


@pytest.mark.slow
def test_a_client_that_never_reads_stdout_stops_being_read_from(
    mcp_env: dict[str, str], mcp_config: Callable[..., Path]
) -> None:
    with _session(mcp_config(), mcp_env) as server:
        assert server.stdin is not None and server.stdout is not None
        time.sleep(1)
        before = _rss_kb(server.pid)
        sent = 0

        def flood() -> None:
            nonlocal sent
            assert server.stdin is not None
            for number in range(1, 3001):
                request = {"jsonrpc": "2.0", "id": number, "method": "tools/list"}
                try:
                    server.stdin.write(json.dumps(request).encode() + b"\n")
                    server.stdin.flush()
                except OSError:
                    return  # the server was ended
                sent = number

        writer = threading.Thread(target=flood, daemon=True)
        writer.start()
        writer.join(timeout=15)
        time.sleep(2)
        grown_mb = (_rss_kb(server.pid) - before) / 1024
        assert writer.is_alive() and sent < 3000, "the server read every request unanswered"
        assert grown_mb < 50, f"the server grew by {grown_mb:.0f} MB"


def test_a_message_over_the_line_cap_is_skipped_unheld_and_the_session_goes_on(
    mcp_env: dict[str, str], mcp_config: Callable[..., Path]
) -> None:
    with _session(mcp_config(), mcp_env) as server:
        assert server.stdin is not None and server.stdout is not None
        before = _rss_kb(server.pid, "VmHWM")
        for _ in range(4):  # 40 MB in one line
            server.stdin.write(b'{"jsonrpc": "2.0", "id": 9, "method": "' + b"x" * 10_000_000)
        server.stdin.write(b'"}\n')
        _send(server.stdin, {"jsonrpc": "2.0", "id": 5, "method": "ping"})
        assert _answer(server.stdout, 5)["result"] == {}
        assert (_rss_kb(server.pid, "VmHWM") - before) / 1024 < 30
