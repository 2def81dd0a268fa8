"""`thoughtforge mcp` over stdio: the SDK's transport, with the two limits it leaves open.

- Back-pressure: a client's next line is read only while fewer than `MAX_UNANSWERED` of its
  requests wait for their answer to be written. A client that never reads stdout stops being
  read from (its own writes then block), instead of growing the server by every answer.
- A size: a line (one message) over `MAX_LINE_CHARS` is skipped as it is read, never held, and
  still answered: a request with an error naming the cap; the client's answer to the server's
  own request (the person's words for `ask_person`) is handed on as that error, so the tool
  waiting for it answers too. Its id is read from the line's head (or its tail).
- An end: the client closing stdin is the end of the session (the MCP spec's word for stdio).
  The server exits once the SDK is done, or `EXIT_GRACE_SECONDS` after the close when a tool
  still waits (a sync tool's thread cannot be cancelled); a run a tool started is a process of
  its own and goes on.

As the SDK does, the protocol's descriptors are kept privately while fd 0 reads the null device
and fd 1 writes to stderr, so nothing a tool runs can read the client's requests or write into
the channel.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
from collections.abc import AsyncIterator, Iterator
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

    def __init__(self, stdin: TextIO, flow: _Flow, answers: _Answers) -> None:
        self.stdin = stdin
        self.flow = flow
        self.answers = answers

    async def _readline(self, limit: int) -> str:
        return await anyio.to_thread.run_sync(self.stdin.readline, limit, abandon_on_cancel=True)

    async def __aiter__(self) -> AsyncIterator[str]:
        while line := await self._readline(MAX_LINE_CHARS + 1):
            if len(line) > MAX_LINE_CHARS and not line.endswith("\n"):
                tail = await self._skip_rest_of(line)
                head = line[:_ID_WINDOW]
                refused = _refused(head, tail[-_ID_WINDOW:])
                if refused is None:
                    continue
                if '"method"' in head:  # a request: the client is owed the error
                    await self.answers.send(json.dumps(refused) + "\n")
                else:  # the client's answer to the server's own request: handed on as the error
                    yield json.dumps(refused) + "\n"
                continue
            await self.flow.read(line)
            yield line
        _exit_after(EXIT_GRACE_SECONDS)

    async def _skip_rest_of(self, line: str) -> str:
        """A line over the cap is read through, never held whole; its last piece."""
        last = line
        while line and not line.endswith("\n"):
            line = await self._readline(MAX_LINE_CHARS)
            last = (last[-_ID_WINDOW:] + line) if line else last
        sys.stderr.write(
            f"thoughtforge mcp: a message over {MAX_LINE_CHARS:,} characters was skipped\n"
        )
        return last


class _Answers:
    """stdout, telling the flow of each answer once it is written. The SDK writes a message,
    then flushes; the lock is held between the two, so a refusal `send` writes never lands in
    the middle of one."""

    def __init__(self, stdout: anyio.AsyncFile[str], flow: _Flow) -> None:
        self.stdout = stdout
        self.flow = flow
        self.written = ""
        self.lock = anyio.Lock()

    async def write(self, text: str) -> None:
        await self.lock.acquire()
        await self.stdout.write(text)
        self.written = text

    async def flush(self) -> None:
        try:
            await self.stdout.flush()
        finally:
            self.lock.release()
        await self.flow.answered(self.written)

    async def send(self, text: str) -> None:
        """A message of the server's own (a refusal), whole."""
        async with self.lock:
            await self.stdout.write(text)
            await self.stdout.flush()


def serve_stdio(server: MCPServer) -> None:
    """Serve `server` on this process's stdin and stdout until the client closes stdin."""
    from mcp.server.stdio import stdio_server

    stdin_fd, stdout_fd = _claim_standard_streams()

    async def run() -> None:
        flow = _Flow()
        stdin = os.fdopen(stdin_fd, encoding="utf-8", errors="replace")
        stdout = anyio.wrap_file(os.fdopen(stdout_fd, "w", encoding="utf-8"))
        answers: Any = _Answers(stdout, flow)
        requests: Any = _Requests(stdin, flow, answers)
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


_ID_WINDOW = 64 * 1024
"""How much of an oversized line's head and tail is kept to find its id."""
_ID = re.compile(r'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,200}")')
_TOO_LARGE = -32600  # JSON-RPC's Invalid Request


def _refused(head: str, tail: str) -> dict[str, Any] | None:
    """The error a message over the cap is answered with, by the id its head (before its
    params) or its tail names; None when it names none (a notification: nothing is owed)."""
    before_params = head.split('"params"', 1)[0]
    found = _ID.search(before_params) or _last(_ID.finditer(tail))
    if found is None:
        return None
    words = (
        f"a message over thoughtforge mcp's cap of {MAX_LINE_CHARS:,} characters was not read; "
        "put long text in a file (create_project takes brain_dump_file)"
    )
    error = {"code": _TOO_LARGE, "message": words}
    return {"jsonrpc": "2.0", "id": json.loads(found.group(1)), "error": error}


def _last(matches: Iterator[re.Match[str]]) -> re.Match[str] | None:
    found = None
    for found in matches:  # noqa: B007 - the last one is wanted
        pass
    return found


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
