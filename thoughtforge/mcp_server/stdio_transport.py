"""`thoughtforge mcp` over stdio: the SDK's transport, with the two limits it leaves open.

- Back-pressure: a client's next line is read only while fewer than `MAX_UNANSWERED` of its
  requests wait for their answer to be written. A client that never reads stdout stops being
  read from (its own writes then block), instead of growing the server by every answer.
- A size: a line (one message) over `MAX_LINE_CHARS` is skipped as it is read, never held.
- An end: the client closing stdin is the end of the session (the MCP spec's word for stdio).
  The server exits once the SDK is done, or `EXIT_GRACE_SECONDS` after the close when a tool
  still waits (a sync tool's thread cannot be cancelled); a run a tool started is a process of
  its own and goes on.

As the SDK does, the protocol's descriptors are kept privately while fd 0 reads the null device
and fd 1 writes to stderr, so nothing a tool runs can read the client's requests or write into
the channel.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, TextIO

import anyio
import anyio.to_thread

from thoughtforge.bounded_input import parse_json

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

MAX_UNANSWERED = 32
MAX_LINE_CHARS = 2 * 1024 * 1024
"""One message: far over any tool's text limit (`bounded_input.MAX_MESSAGE_CHARS`)."""
EXIT_GRACE_SECONDS = 3.0


class _Flow:
    """How many requests read wait for their answer to be written."""

    def __init__(self) -> None:
        self.unanswered = 0
        self.changed = anyio.Condition()

    async def read(self, line: str) -> None:
        requests = _requests_in(line)
        async with self.changed:
            while self.unanswered >= MAX_UNANSWERED:
                await self.changed.wait()
            self.unanswered += requests

    async def answered(self, line: str) -> None:
        if _is_answer(line):
            async with self.changed:
                self.unanswered = max(0, self.unanswered - 1)
                self.changed.notify_all()


class _Requests:
    """stdin's lines, each let through only under the flow's limit; at the end, the exit."""

    def __init__(self, stdin: TextIO, flow: _Flow) -> None:
        self.stdin = stdin
        self.flow = flow

    async def _readline(self, limit: int) -> str:
        return await anyio.to_thread.run_sync(self.stdin.readline, limit, abandon_on_cancel=True)

    async def __aiter__(self) -> AsyncIterator[str]:
        while line := await self._readline(MAX_LINE_CHARS + 1):
            if len(line) > MAX_LINE_CHARS and not line.endswith("\n"):
                await self._skip_rest_of(line)
                continue
            await self.flow.read(line)
            yield line
        _exit_after(EXIT_GRACE_SECONDS)

    async def _skip_rest_of(self, line: str) -> None:
        """A line over the cap is read through, never held whole, and left unanswered."""
        while line and not line.endswith("\n"):
            line = await self._readline(MAX_LINE_CHARS)
        sys.stderr.write(
            f"thoughtforge mcp: a message over {MAX_LINE_CHARS:,} characters was skipped\n"
        )


class _Answers:
    """stdout, telling the flow of each answer once it is written."""

    def __init__(self, stdout: anyio.AsyncFile[str], flow: _Flow) -> None:
        self.stdout = stdout
        self.flow = flow
        self.written = ""

    async def write(self, text: str) -> None:
        await self.stdout.write(text)
        self.written = text

    async def flush(self) -> None:
        await self.stdout.flush()
        await self.flow.answered(self.written)


def serve_stdio(server: MCPServer) -> None:
    """Serve `server` on this process's stdin and stdout until the client closes stdin."""
    from mcp.server.stdio import stdio_server

    stdin_fd, stdout_fd = _claim_standard_streams()

    async def run() -> None:
        flow = _Flow()
        stdin = os.fdopen(stdin_fd, encoding="utf-8", errors="replace")
        stdout = anyio.wrap_file(os.fdopen(stdout_fd, "w", encoding="utf-8"))
        requests: Any = _Requests(stdin, flow)
        answers: Any = _Answers(stdout, flow)
        async with stdio_server(requests, answers) as (read_stream, write_stream):
            lowlevel = server._lowlevel_server  # what `MCPServer.run_stdio_async` runs
            await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())

    anyio.run(run)


def _claim_standard_streams() -> tuple[int, int]:
    """Private copies of fd 0 and 1 for the protocol; fd 0 then reads /dev/null, fd 1 goes to
    stderr."""
    stdin_fd, stdout_fd = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return stdin_fd, stdout_fd


def _exit_after(seconds: float) -> None:
    """Exit the process `seconds` from now unless it ends first (a tool's thread may wait)."""

    def leave() -> None:
        os._exit(0)

    timer = threading.Timer(seconds, leave)
    timer.daemon = True
    timer.start()


def _requests_in(line: str) -> int:
    """Requests (a method and an id) in one line: each is owed an answer."""
    try:
        message = parse_json(line, "a message")
    except (ValueError, RecursionError):
        return 0
    messages = message if isinstance(message, list) else [message]
    return sum(1 for m in messages if isinstance(m, dict) and "method" in m and "id" in m)


def _is_answer(line: str) -> bool:
    """Whether a line written is an answer (an id, and no method)."""
    try:
        message = parse_json(line, "a message")
    except (ValueError, RecursionError):
        return False
    return isinstance(message, dict) and "id" in message and "method" not in message
