"""A fake model API on 127.0.0.1 that the real agent CLIs talk to: Anthropic Messages
(`POST /v1/messages`, Claude Code), OpenAI Responses (`POST /v1/responses`, Codex) and Gemini
(`…:streamGenerateContent?alt=sse` and `…:generateContent`, Gemini CLI), all streamed as each API
streams. What it says is `model_answers`' (which step the prompt is, which tool call comes
next); it says it in each CLI's own tool vocabulary: Claude's `Write`/`Bash` tool_use blocks,
Codex's `apply_patch`/`exec_command` (inside its `exec` code-mode tool when that is what it
offers), Gemini's `write_file`/`run_shell_command` function calls.

Every exchange is recorded with the usage reported for it (input tokens: the request's size /4,
the way a provider counts the whole request the CLI sent; output: the answer's), so a test can
compare what ThoughtForge recorded with what the "provider" billed. `fail(status, message)`
makes every request fail with that API's own error body (`times=N`: only the next N, as a
rate limit or a passing overload does); `stall_step` holds a step's request
unanswered (a call in flight, for as long as a test needs one).

    with FakeModelAPI() as api:
        ... ANTHROPIC_BASE_URL=api.url ...
        assert api.billed() == (tokens_in, tokens_out)
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from tests.agent_clis.model_answers import Action, Run, Turn, Write, next_turn, step_of
from tests.local_http import LocalHttpServer

CHUNK_CHARS = 40
"""A text answer streams in pieces this long."""


@dataclass
class Exchange:
    """One request a CLI made and what was billed for it."""

    api: str
    path: str
    step: str | None
    tokens_in: int
    tokens_out: int
    request: dict[str, Any]
    tool_errors: list[str]


class FakeModelAPI(LocalHttpServer):
    def __init__(self) -> None:
        self.exchanges: list[Exchange] = []
        self.failure: tuple[int, str] | None = None
        self.failures_left: int | None = None
        """How many more requests `failure` answers (None: every one)."""
        self.wander: tuple[Action, ...] = ()
        """Tool calls each coding step tries first (`model_answers.next_turn`)."""
        self.stall_step: str | None = None
        """A request of this step is recorded, then held unanswered until the fake closes."""
        self._lock = threading.Lock()
        super().__init__(_handler_for(self))

    def fail(self, status: int, message: str, times: int | None = None) -> None:
        """Answer every request from now on with this error (`times`: the next so many)."""
        self.failure = (status, message)
        self.failures_left = times

    def failing(self) -> tuple[int, str] | None:
        """The error the request now arriving gets, if any (one of `times` spent)."""
        with self._lock:
            if self.failure is None or self.failures_left == 0:
                return None
            if self.failures_left is not None:
                self.failures_left -= 1
            return self.failure

    def billed(self, since: int = 0) -> tuple[int, int]:
        """Tokens in and out reported for the exchanges from index `since` on."""
        with self._lock:
            chosen = self.exchanges[since:]
            return sum(e.tokens_in for e in chosen), sum(e.tokens_out for e in chosen)

    def steps(self) -> list[str | None]:
        with self._lock:
            return [e.step for e in self.exchanges]

    def record(self, exchange: Exchange) -> None:
        with self._lock:
            self.exchanges.append(exchange)


def _handler_for(api: FakeModelAPI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_GET(self) -> None:  # Codex tries a WebSocket first; it falls back to POST
            self._send(404, "application/json", b'{"error": {"message": "no websocket"}}')

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                self._send(400, "application/json", b'{"error": {"message": "bad json"}}')
                return
            path = self.path.split("?", 1)[0]
            if path.endswith("/messages/count_tokens"):
                self._json({"input_tokens": len(raw) // 4})
                return
            if path.endswith("/messages"):
                Anthropic(self, api, body, len(raw)).answer()
            elif path.endswith("/responses"):
                Responses(self, api, body, len(raw)).answer()
            elif ":streamGenerateContent" in path or ":generateContent" in path:
                Gemini(self, api, body, len(raw), streamed="stream" in path).answer()
            elif path.endswith(":countTokens"):
                self._json({"totalTokens": len(raw) // 4})
            else:
                self._send(404, "application/json", b'{"error": {"message": "unknown path"}}')

        def _json(self, payload: dict[str, Any], status: int = 200) -> None:
            self._send(status, "application/json", json.dumps(payload).encode())

        def _send(self, status: int, kind: str, data: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def start_stream(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True

        def event(self, name: str | None, payload: dict[str, Any]) -> None:
            head = f"event: {name}\n" if name else ""
            self.wfile.write(f"{head}data: {json.dumps(payload)}\n\n".encode())
            self.wfile.flush()

    return Handler


def _chunks(text: str) -> list[str]:
    return [text[i : i + CHUNK_CHARS] for i in range(0, len(text), CHUNK_CHARS)] or [""]


def _workdir(texts: list[str]) -> Path | None:
    """The CLI's working directory, from the environment it describes to the model."""
    joined = "\n".join(texts)
    for pattern in (
        r"Primary working directory: (\S+)",
        r"<cwd>([^<]+)</cwd>",
        r"Workspace Directories:\*\*\s*\n\s*- (\S+)",
    ):
        found = re.search(pattern, joined)
        if found:
            return Path(found.group(1))
    return None


def _prompt(texts: list[str]) -> str:
    """The ThoughtForge prompt among the user's texts (a CLI adds its own around it)."""
    for text in texts:
        if step_of(text) is not None:
            return text
    return "\n".join(texts)


class _Protocol:
    api_name = ""

    def __init__(self, handler: Any, api: FakeModelAPI, body: dict[str, Any], size: int) -> None:
        self.handler = handler
        self.api = api
        self.body = body
        self.size = size

    def answer(self) -> None:
        texts, context, results, errors = self.conversation()
        prompt = _prompt(texts)
        step = step_of(prompt)
        failure = self.api.failing()
        if failure is not None:
            self.api.record(Exchange(self.api_name, self.handler.path, step, 0, 0, self.body, []))
            self.error(*failure)
            return
        if step is not None and step == self.api.stall_step:
            self.api.record(Exchange(self.api_name, self.handler.path, step, 0, 0, self.body, []))
            self.api._released.wait(300)
            return
        turn = self.turn(prompt, results, _workdir(texts + context))
        tokens_in = max(1, self.size // 4)
        tokens_out = max(1, len(json.dumps(self.describe(turn))) // 4)
        exchange = Exchange(
            self.api_name, self.handler.path, step, tokens_in, tokens_out, self.body, errors
        )
        self.api.record(exchange)
        self.stream(turn, tokens_in, tokens_out)

    def turn(self, prompt: str, results: int, workdir: Path | None) -> Turn:
        return next_turn(prompt, results, workdir, self.api.wander)

    @staticmethod
    def describe(turn: Turn) -> Any:
        if turn.action is None:
            return turn.text
        return turn.action.__dict__

    def conversation(self) -> tuple[list[str], list[str], int, list[str]]:
        """The user's texts, other context texts, how many tool results, the failed ones."""
        raise NotImplementedError

    def stream(self, turn: Turn, tokens_in: int, tokens_out: int) -> None:
        raise NotImplementedError

    def error(self, status: int, message: str) -> None:
        raise NotImplementedError


class Anthropic(_Protocol):
    """Claude Code: tool_use blocks `Write {file_path, content}` and `Bash {command}`."""

    api_name = "anthropic"

    def conversation(self) -> tuple[list[str], list[str], int, list[str]]:
        texts: list[str] = []
        context = [_text_of(self.body.get("system"))]
        results, errors = 0, []
        for message in self.body.get("messages") or []:
            content = message.get("content")
            blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
            for block in blocks:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "tool_result":
                    results += 1
                    if block.get("is_error"):
                        errors.append(_text_of(block.get("content")))
                elif block.get("type") == "text" and message.get("role") == "user":
                    texts.append(str(block.get("text") or ""))
                elif block.get("type") == "text":
                    context.append(str(block.get("text") or ""))
        return texts, context, results, errors

    def stream(self, turn: Turn, tokens_in: int, tokens_out: int) -> None:
        h = self.handler
        h.start_stream()
        message = {
            "id": f"msg_{len(self.api.exchanges)}",
            "type": "message",
            "role": "assistant",
            "model": self.body.get("model", "claude"),
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": tokens_in, "output_tokens": 1},
        }
        h.event("message_start", {"type": "message_start", "message": message})
        if turn.action is None:
            block = {"type": "text", "text": ""}
            h.event(
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": block},
            )
            for piece in _chunks(turn.text):
                delta = {"type": "text_delta", "text": piece}
                h.event(
                    "content_block_delta",
                    {"type": "content_block_delta", "index": 0, "delta": delta},
                )
            stop = "end_turn"
        else:
            name, arguments = _claude_tool(turn.action)
            block = {
                "type": "tool_use",
                "id": f"toolu_{len(self.api.exchanges)}",
                "name": name,
                "input": {},
            }
            h.event(
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": block},
            )
            delta = {"type": "input_json_delta", "partial_json": json.dumps(arguments)}
            h.event(
                "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}
            )
            stop = "tool_use"
        h.event("content_block_stop", {"type": "content_block_stop", "index": 0})
        h.event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"input_tokens": tokens_in, "output_tokens": tokens_out},
            },
        )
        h.event("message_stop", {"type": "message_stop"})

    def error(self, status: int, message: str) -> None:
        kind = {400: "invalid_request_error", 401: "authentication_error"}.get(status, "api_error")
        self.handler._json({"type": "error", "error": {"type": kind, "message": message}}, status)


def _claude_tool(action: Write | Run) -> tuple[str, dict[str, Any]]:
    if isinstance(action, Write):
        return "Write", {"file_path": action.path, "content": action.text}
    return "Bash", {"command": action.command, "description": "Run the tests"}


class Responses(_Protocol):
    """Codex: `apply_patch` (a freeform patch) and `exec_command {cmd}`, called as top-level
    tools when offered so, else from JavaScript in its code-mode `exec` tool."""

    api_name = "openai"

    def conversation(self) -> tuple[list[str], list[str], int, list[str]]:
        texts: list[str] = []
        context = [str(self.body.get("instructions") or "")]
        results, errors = 0, []
        for item in self.body.get("input") or []:
            kind = item.get("type")
            if kind in ("function_call_output", "custom_tool_call_output"):
                results += 1
                output = _text_of(item.get("output"))
                if re.search(r"rejected|blocked|denied|not permitted|exit_code\W+[1-9]", output):
                    errors.append(output)
            elif kind == "message" or item.get("role"):
                text = _text_of(item.get("content"))
                (texts if item.get("role") == "user" else context).append(text)
        return texts, context, results, errors

    def _tool_names(self) -> set[str]:
        names: set[str] = set()

        def walk(tools: list[Any]) -> None:
            for tool in tools:
                if isinstance(tool, dict):
                    names.add(str(tool.get("name") or tool.get("type")))
                    walk(tool.get("tools") or [])

        walk(self.body.get("tools") or [])
        for item in self.body.get("input") or []:
            if item.get("type") == "additional_tools":
                walk(item.get("tools") or [])
        return names

    def stream(self, turn: Turn, tokens_in: int, tokens_out: int) -> None:
        h = self.handler
        h.start_stream()
        response_id = f"resp_{len(self.api.exchanges)}"
        h.event(None, {"type": "response.created", "response": {"id": response_id}})
        if turn.action is None:
            added = {"type": "message", "role": "assistant", "id": "m", "content": []}
            h.event(None, {"type": "response.output_item.added", "output_index": 0, "item": added})
            for piece in _chunks(turn.text):
                h.event(
                    None,
                    {
                        "type": "response.output_text.delta",
                        "delta": piece,
                        "item_id": "m",
                        "output_index": 0,
                        "content_index": 0,
                    },
                )
            item: dict[str, Any] = {
                "type": "message",
                "role": "assistant",
                "id": "m",
                "content": [{"type": "output_text", "text": turn.text, "annotations": []}],
            }
        else:
            item = self._call(turn.action, f"call_{len(self.api.exchanges)}")
        h.event(None, {"type": "response.output_item.done", "output_index": 0, "item": item})
        usage = {
            "input_tokens": tokens_in,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": tokens_out,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": tokens_in + tokens_out,
        }
        h.event(
            None, {"type": "response.completed", "response": {"id": response_id, "usage": usage}}
        )

    def _call(self, action: Write | Run, call_id: str) -> dict[str, Any]:
        """The tool call, top-level when offered so, else JavaScript in the `exec` tool."""
        in_code_mode = "exec" in self._tool_names()
        top_level = _top_level(self.body)
        if isinstance(action, Write):
            tool, given = "apply_patch", _patch(action)
        else:
            tool, given = (
                "exec_command",
                json.dumps({"cmd": action.command, "yield_time_ms": 30000}),
            )
        if in_code_mode and tool not in top_level:
            argument = json.dumps(given) if tool == "apply_patch" else given
            source = f"const r = await tools.{tool}({argument});\ntext(JSON.stringify(r));"
            return _custom(call_id, "exec", source)
        if tool == "apply_patch":
            return _custom(call_id, tool, given)
        return {
            "type": "function_call",
            "call_id": call_id,
            "name": tool,
            "arguments": given,
            "id": call_id,
        }

    def error(self, status: int, message: str) -> None:
        self.handler._json(
            {"error": {"message": message, "type": "invalid_request_error", "code": None}}, status
        )


def _custom(call_id: str, name: str, given: str) -> dict[str, Any]:
    """A freeform tool call (Codex's `apply_patch` and `exec` take raw text)."""
    return {
        "type": "custom_tool_call",
        "call_id": call_id,
        "name": name,
        "input": given,
        "id": call_id,
    }


def _top_level(body: dict[str, Any]) -> set[str]:
    return {str(tool.get("name")) for tool in body.get("tools") or [] if isinstance(tool, dict)}


def _patch(action: Write) -> str:
    lines = "".join(f"+{line}\n" for line in action.text.splitlines())
    return f"*** Begin Patch\n*** Add File: {action.path}\n{lines}*** End Patch\n"


class Gemini(_Protocol):
    """Gemini CLI: `write_file {file_path, content}` and `run_shell_command {command}` function
    calls, when its tools offer them; JSON side requests (its model router) get an object that
    fits their schema."""

    api_name = "gemini"

    def __init__(
        self, handler: Any, api: FakeModelAPI, body: dict[str, Any], size: int, *, streamed: bool
    ) -> None:
        super().__init__(handler, api, body, size)
        self.streamed = streamed

    def conversation(self) -> tuple[list[str], list[str], int, list[str]]:
        texts: list[str] = []
        context = [_text_of((self.body.get("systemInstruction") or {}).get("parts"))]
        results, errors = 0, []
        for content in self.body.get("contents") or []:
            for part in content.get("parts") or []:
                if "functionResponse" in part:
                    results += 1
                    response = json.dumps(part["functionResponse"].get("response"))
                    if "error" in response.lower():
                        errors.append(response)
                elif "text" in part and content.get("role") in (None, "user"):
                    texts.append(str(part["text"]))
        return texts, context, results, errors

    def turn(self, prompt: str, results: int, workdir: Path | None) -> Turn:
        settings = self.body.get("generationConfig") or {}
        schema = settings.get("responseJsonSchema") or settings.get("responseSchema")
        if schema is not None:
            return Turn(text=json.dumps(_fill(schema)))
        turn = super().turn(prompt, results, workdir)
        offered = self._offered()
        if turn.action is not None and _gemini_tool(turn.action)[0] not in offered:
            return Turn(
                text="Built calc.py and test_calc.py."
            )  # what a model without the tool says
        return turn

    def _offered(self) -> set[str]:
        return {
            str(declaration.get("name"))
            for tool in self.body.get("tools") or []
            for declaration in tool.get("functionDeclarations") or []
        }

    def stream(self, turn: Turn, tokens_in: int, tokens_out: int) -> None:
        if turn.action is None:
            parts: list[list[dict[str, Any]]] = [[{"text": piece}] for piece in _chunks(turn.text)]
        else:
            name, args = _gemini_tool(turn.action)
            parts = [[{"functionCall": {"name": name, "args": args}}]]
        usage = {
            "promptTokenCount": tokens_in,
            "candidatesTokenCount": tokens_out,
            "totalTokenCount": tokens_in + tokens_out,
        }
        chunks = []
        for index, piece in enumerate(parts):
            chunk: dict[str, Any] = {
                "candidates": [{"content": {"role": "model", "parts": piece}, "index": 0}]
            }
            if index == len(parts) - 1:
                chunk["candidates"][0]["finishReason"] = "STOP"
                chunk["usageMetadata"] = usage
            chunk["modelVersion"] = "fake-gemini"
            chunks.append(chunk)
        if not self.streamed:
            whole = [part for piece in parts for part in piece]
            merged = [{"text": "".join(p["text"] for p in whole)}] if turn.action is None else whole
            self.handler._json(
                {
                    "candidates": [
                        {
                            "content": {"role": "model", "parts": merged},
                            "finishReason": "STOP",
                            "index": 0,
                        }
                    ],
                    "usageMetadata": usage,
                    "modelVersion": "fake-gemini",
                }
            )
            return
        self.handler.start_stream()
        for chunk in chunks:
            self.handler.event(None, chunk)

    def error(self, status: int, message: str) -> None:
        state = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED"}.get(status, "INTERNAL")
        self.handler._json({"error": {"code": status, "message": message, "status": state}}, status)


def _gemini_tool(action: Write | Run) -> tuple[str, dict[str, Any]]:
    if isinstance(action, Write):
        return "write_file", {"file_path": action.path, "content": action.text}
    return "run_shell_command", {"command": action.command, "description": "Run the tests"}


def _fill(schema: dict[str, Any]) -> Any:
    """The smallest value that fits a JSON schema (Gemini CLI's routing and checks ask these)."""
    kind = str(schema.get("type", "object")).lower()
    if "enum" in schema:
        return schema["enum"][0]
    if kind == "object":
        properties = schema.get("properties") or {}
        return {name: _fill(sub) for name, sub in properties.items()}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return 10
    if kind == "boolean":
        return False
    return "simple"


def _text_of(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(_text_of(v) for v in value)
    if isinstance(value, dict):
        for key in ("text", "content", "output"):
            if key in value:
                return _text_of(value[key])
        return json.dumps(value)
    return str(value)
