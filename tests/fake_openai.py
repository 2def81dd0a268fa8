"""A real HTTP server on 127.0.0.1 that answers `POST /v1/chat/completions` as OpenAI's API does.

Each request takes the next scripted `Reply` (the last one repeats): streamed as server-sent events
in `chunks` pieces, or as one JSON body when the request asks for no stream or `stream_anyway` is
off; with a `finish_reason` (`length` for a cut answer, plus `usage`), or an error status with
OpenAI's `{"error": {"message": …}}` body. `refuse_json_schema` answers a `json_schema`
response_format as llama-cpp-python's server does: 500. Every request is recorded.

    with FakeOpenAI() as server:
        server.script(Reply("hello"), Reply(status=429))
        ... base_url=server.url + "/v1" ...
        assert server.requests[0].json()["model"] == "tiny"
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.capture_server import CapturedRequest
from tests.local_http import LocalHttpServer


@dataclass(frozen=True)
class Reply:
    content: str = ""
    finish_reason: str = "stop"
    status: int = 200
    error: str = "something went wrong"
    chunks: int = 3
    headers: dict[str, str] = field(default_factory=dict)
    completion_tokens: int | None = None
    streamed: bool = True
    """False: one JSON body even when a stream was asked for (servers that do not stream)."""
    hostile: str | None = None
    """A server misbehaving, for as long as the client stays (`HOSTILE`)."""
    usage: dict[str, Any] | None = None
    """The `usage` object: in the JSON body, or streamed as OpenAI streams it (a last event with
    no choices) when the request asks `stream_options: {"include_usage": true}`."""


HOSTILE = {
    "comments": "SSE headers, then only `: PROCESSING` comment lines, one every 0.2 s",
    "trickle": "a `Content-Length: 50000` JSON body, one byte every 0.5 s",
    "silent_after_headers": "the SSE headers, then nothing",
    "silent": "nothing at all, not even headers",
    "huge_announced": "a JSON body announced as 1 GB",
    "huge_unannounced": "a JSON body without a length that never ends, sent as fast as it goes",
    "endless_line": "an SSE `data:` line that never ends",
    "redirect": "307 to another host's /v1/chat/completions",
    "html": "200 with a proxy's HTML page",
    "cut_stream": "a few content events, then the connection closes (no finish, no [DONE])",
}


class FakeOpenAI(LocalHttpServer):
    def __init__(self, *, refuse_json_schema: bool = False) -> None:
        self.requests: list[CapturedRequest] = []
        self.refuse_json_schema = refuse_json_schema
        self._replies: list[Reply] = [Reply("ok")]
        super().__init__(_handler_for(self))

    def script(self, *replies: Reply) -> None:
        self._replies = list(replies)

    def next_reply(self, body: dict[str, Any]) -> Reply:
        form = (body.get("response_format") or {}).get("type")
        if self.refuse_json_schema and form == "json_schema":
            return Reply(status=500, error="Unsupported response_format type: json_schema")
        return self._replies.pop(0) if len(self._replies) > 1 else self._replies[0]

    @property
    def bodies(self) -> list[dict[str, Any]]:
        return [request.json() for request in self.requests]


def _handler_for(server: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            return

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            server.requests.append(
                CapturedRequest(method="POST", path=self.path, headers=self.headers, body=raw)
            )
            if self.path != "/v1/chat/completions":
                self._json(404, {"error": {"message": f"no route {self.path}"}})
                return
            body = json.loads(raw)
            reply = server.next_reply(body)
            if reply.hostile is not None:
                with contextlib.suppress(OSError):
                    getattr(self, f"_{reply.hostile}")()
                self.close_connection = True
            elif reply.status != 200:
                self._json(reply.status, {"error": {"message": reply.error}}, reply.headers)
            elif body.get("stream") and reply.streamed:
                self._stream(reply, (body.get("stream_options") or {}).get("include_usage"))
            else:
                self._json(200, _completion(reply))

        def _json(
            self, status: int, payload: object, headers: dict[str, str] | None = None
        ) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def _held(self, seconds: float) -> bool:
            """Wait `seconds`; False once the server closes (the test is over)."""
            return not server._released.wait(seconds)

        def _headers(self, content_type: str, length: int | None = None) -> None:
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            if length is not None:
                self.send_header("Content-Length", str(length))
            self.end_headers()
            self.wfile.flush()

        def _comments(self) -> None:
            self._headers("text/event-stream")
            while self._held(0.2):
                self.wfile.write(b": PROCESSING\n\n")
                self.wfile.flush()

        def _trickle(self) -> None:
            self._headers("application/json", 50_000)
            while self._held(0.5):
                self.wfile.write(b" ")
                self.wfile.flush()

        def _silent_after_headers(self) -> None:
            self._headers("text/event-stream")
            self._held(120)

        def _silent(self) -> None:
            self._held(120)

        def _huge_announced(self) -> None:
            self._headers("application/json", 1 << 30)
            block = b" " * 65536
            while not server._released.is_set():
                self.wfile.write(block)

        def _huge_unannounced(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(b'{"choices": [{"message": {"content": "')
            block = b"x" * 65536
            while not server._released.is_set():
                self.wfile.write(block)

        def _endless_line(self) -> None:
            self._headers("text/event-stream")
            self.wfile.write(b'data: {"choices": [{"delta": {"content": "')
            block = b"x" * 65536
            while not server._released.is_set():
                self.wfile.write(block)

        def _redirect(self) -> None:
            self.send_response(307)
            self.send_header("Location", "http://elsewhere.example:8080/v1/chat/completions")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def _html(self) -> None:
            page = b"<!DOCTYPE html><html><head><title>Sign in - Proxy</title></head></html>"
            self._headers("text/html; charset=utf-8", len(page))
            self.wfile.write(page)

        def _cut_stream(self) -> None:
            self._headers("text/event-stream")
            for piece in ("Half ", "an ", "answer"):
                event = {"choices": [{"delta": {"content": piece}}]}
                self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
            self.wfile.flush()

        def _stream(self, reply: Reply, include_usage: bool = False) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            size = max(1, -(-len(reply.content) // reply.chunks))
            pieces = [reply.content[i : i + size] for i in range(0, len(reply.content), size)]
            events: list[dict[str, Any]] = [{"choices": [{"delta": {"role": "assistant"}}]}]
            events += [{"choices": [{"delta": {"content": piece}}]} for piece in pieces]
            last: dict[str, Any] = {
                "choices": [{"delta": {}, "finish_reason": reply.finish_reason}]
            }
            if reply.completion_tokens is not None:
                last["usage"] = {"completion_tokens": reply.completion_tokens}
            events.append(last)
            if include_usage and reply.usage is not None:
                events.append({"choices": [], "usage": reply.usage})
            for event in events:
                self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                self.wfile.flush()
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
            self.close_connection = True

    return Handler


def _completion(reply: Reply) -> dict[str, Any]:
    usage = {"completion_tokens": reply.completion_tokens} if reply.completion_tokens else {}
    usage.update(reply.usage or {})
    return {
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply.content},
                "finish_reason": reply.finish_reason,
            }
        ],
        "usage": usage,
    }
