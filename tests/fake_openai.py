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
            if reply.status != 200:
                self._json(reply.status, {"error": {"message": reply.error}}, reply.headers)
            elif body.get("stream") and reply.streamed:
                self._stream(reply)
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

        def _stream(self, reply: Reply) -> None:
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
            for event in events:
                self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                self.wfile.flush()
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
            self.close_connection = True

    return Handler


def _completion(reply: Reply) -> dict[str, Any]:
    usage = {"completion_tokens": reply.completion_tokens} if reply.completion_tokens else {}
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
