"""Ask an OpenAI-compatible chat-completions endpoint (`type: openai`), streaming the answer.

httpx, not the `openai` package: Prefect already brings it in (one client fewer to keep), and
llama.cpp's own structured-output form (`json_object` with a `schema`) is not part of OpenAI's API,
so the SDK would only pass it through untyped. What the SDK would add is done here in a few lines,
as Prefect's own client does it: 429 and 5xx (and a dropped connection) are retried with
exponential backoff and jitter, a server's `Retry-After` wins.

The key is read from the environment variable the config names, at each call, and sent only in the
Authorization header; any failure text that could echo it has it replaced. The answer streams in as
server-sent events; each piece goes to `on_output` (the project's live preview) as it arrives. A
`finish_reason` of `length` is a cut-off answer, refused as such: half a JSON object is no answer.

Nothing the server does can hold the call past `agents.call_timeout_seconds`, retries included:
the deadline is checked as each piece arrives, and every socket of the call is shut down when it
passes (`adapters.deadline`), which ends a read blocked on comment lines, keep-alives, a trickled
body or silence. No answer is read past `agents.max_reply_bytes` (with room for a completion's
JSON around it), streamed or not, nor any line of a stream. Redirects are not followed (the key
would go with them). Each failure says what the server did, and which setting to change.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
from pydantic import BaseModel

from thoughtforge.adapters.agents.call_usage import completion_tokens, from_openai, report
from thoughtforge.adapters.deadline import Deadline
from thoughtforge.config import OpenAIAgentSpec
from thoughtforge.errors import AttemptFailure, FailureKind

RETRIED_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_RETRIES = 3
RETRY_BASE_SECONDS = 1.0
"""The first backoff; then twice as long each time (up to 20 % jitter); a Retry-After wins."""
CONNECT_TIMEOUT_SECONDS = 10.0
MAX_SCHEMA_ITEMS = 8
GRAMMAR_LINES = 4
GRAMMAR_LINE_CHARS = 200
_EXCERPT = 300
_ERROR_BYTES = 64 * 1024
"""An error body is read this far: its message is at the start."""
ENVELOPE_BYTES = 64 * 1024
"""A completion's JSON besides its text: ids, the role, usage."""
_STRUCTURE_WORDS = ("response_format", "json_schema", "schema", "grammar")
_EMPTY = AttemptFailure(kind=FailureKind.EMPTY, reason="empty answer")


class HttpAnswer(BaseModel):
    """The answer, or why there is none; `seconds` counts only the successful exchange."""

    text: str = ""
    failure: AttemptFailure | None = None
    finish_reason: str | None = None
    completion_tokens: int | None = None


def ask_endpoint(
    name: str,
    spec: OpenAIAgentSpec,
    prompt: str | list[dict[str, Any]],
    *,
    schema: dict[str, Any] | None,
    step: str,
    temperature: float,
    timeout: float,
    sections: tuple[str, ...] = (),
    max_bytes: int,
    on_output: Callable[[bytes], None],
) -> HttpAnswer:
    """One chat completion; every failure is returned with its kind, its words naming what to
    change."""
    key = os.environ.get(spec.api_key_env, "") if spec.api_key_env else ""
    if spec.api_key_env and not key:
        return _failed(
            FailureKind.UNAVAILABLE, f"environment variable {spec.api_key_env} is not set"
        )
    body = _request_body(spec, prompt, schema, step, temperature)
    if sections and spec.section_grammar:
        body["grammar"] = sections_grammar(sections)
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    answer = _with_retries(name, spec, body, headers, timeout, max_bytes, on_output)
    if answer.failure is not None:
        kind, reason = answer.failure.kind, answer.failure.reason
        reason = reason.replace(key, "***") if key else reason
        if schema is not None and _about_structure(reason):
            kind, reason = (
                FailureKind.REFUSED,
                f"the server refused structured output ({reason}); set "
                f"agents.available.{name}.structured_output to "
                f"{_other_form(spec.structured_output)}",
            )
        return answer.model_copy(update={"failure": AttemptFailure(kind=kind, reason=reason)})
    if answer.finish_reason == "length":
        tokens = answer.completion_tokens or spec.max_tokens
        cut_off = AttemptFailure(
            kind=FailureKind.CUT_OFF,
            reason=f"answer cut off at {tokens} tokens (agents.available.{name}.max_tokens "
            f"is {spec.max_tokens}; context_window_tokens {spec.context_window_tokens})",
        )
        return answer.model_copy(update={"failure": cut_off})
    return answer


def _failed(kind: FailureKind, reason: str) -> HttpAnswer:
    return HttpAnswer(failure=AttemptFailure(kind=kind, reason=reason))


def response_format(spec: OpenAIAgentSpec, schema: dict[str, Any], step: str) -> dict[str, Any]:
    """The schema in the form the server takes: OpenAI's, or llama.cpp's own."""
    if spec.max_string_chars is not None:
        schema = bounded(schema, spec.max_string_chars)
    if spec.structured_output == "json_object":
        return {"type": "json_object", "schema": schema}
    name = "".join(c if c.isalnum() or c in "_-" else "_" for c in step)[:64] or "answer"
    return {"type": "json_schema", "json_schema": {"name": name, "schema": schema}}


def bounded(schema: Any, max_chars: int) -> Any:
    """`schema` with a `maxLength` on each string and a `maxItems` on each array that has none."""
    if isinstance(schema, list):
        return [bounded(item, max_chars) for item in schema]
    if not isinstance(schema, dict):
        return schema
    copy = {key: bounded(value, max_chars) for key, value in schema.items()}
    if copy.get("type") == "string" and "enum" not in copy and "const" not in copy:
        copy.setdefault("maxLength", max_chars)
    if copy.get("type") == "array":
        copy.setdefault("maxItems", MAX_SCHEMA_ITEMS)
    return copy


def sections_grammar(headings: tuple[str, ...]) -> str:
    """A GBNF grammar for an answer made of exactly `headings` as `##` sections, in order, each
    with one to `GRAMMAR_LINES` lines of at most `GRAMMAR_LINE_CHARS` characters: the shape the
    step checks, and an end the model cannot ramble past."""
    rules = [f"root ::= {' '.join(f'section{n}' for n in range(len(headings)))}"]
    for number, heading in enumerate(headings):
        literal = json.dumps(f"## {heading}\n")
        rules.append(f'section{number} ::= {literal} line{{1,{GRAMMAR_LINES}}} "\\n"')
    rules.append(f'line ::= [^#\\n] [^\\n]{{0,{GRAMMAR_LINE_CHARS}}} "\\n"')
    return "\n".join(rules) + "\n"


def _request_body(
    spec: OpenAIAgentSpec,
    prompt: str | list[dict[str, Any]],
    schema: dict[str, Any] | None,
    step: str,
    temperature: float,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": spec.model,
        "messages": [{"role": "user", "content": prompt}],  # text, or text and images
        "stream": True,
        "stream_options": {"include_usage": True},  # the last event then carries `usage`
        "temperature": temperature,
    }
    if spec.max_tokens is not None:
        body["max_tokens"] = spec.max_tokens
    if schema is not None and spec.structured_output != "none":
        body["response_format"] = response_format(spec, schema, step)
    return body


def _with_retries(
    name: str,
    spec: OpenAIAgentSpec,
    body: dict[str, Any],
    headers: dict[str, str],
    timeout: float,
    max_bytes: int,
    on_output: Callable[[bytes], None],
) -> HttpAnswer:
    url = f"{spec.base_url}/chat/completions"
    deadline = time.monotonic() + timeout
    last, last_kind = "", FailureKind.UNREACHABLE
    for retry in range(MAX_RETRIES + 1):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return _failed(
                FailureKind.TIMED_OUT, _late(timeout, last or "the retries took all of it")
            )
        exchange = _Exchange(name=name, spec=spec, deadline=deadline, max_bytes=max_bytes)
        client_timeout = httpx.Timeout(remaining, connect=min(CONNECT_TIMEOUT_SECONDS, remaining))
        with Deadline(remaining) as watchdog:
            try:
                with (
                    httpx.Client(timeout=client_timeout, follow_redirects=False) as client,
                    client.stream(
                        "POST",
                        url,
                        json=body,
                        headers={**headers, "Accept-Encoding": "identity"},
                        extensions={"trace": exchange.trace(watchdog)},
                    ) as response,
                ):
                    exchange.answered(response)
                    if response.status_code not in RETRIED_STATUSES:
                        return _answer_of(response, exchange, on_output)
                    last, last_kind = _status_text(response, exchange), FailureKind.REFUSED
                    if _about_structure(last) and "response_format" in body:
                        return _failed(FailureKind.REFUSED, last)
                    wait = _backoff(retry, response.headers.get("retry-after"))
            except _Refused as refused:
                return _failed(refused.kind, str(refused))
            except (_Late, httpx.TimeoutException):
                return _failed(FailureKind.TIMED_OUT, _late(timeout, exchange.what_happened()))
            except httpx.TransportError as exc:
                if watchdog.passed:
                    return _failed(FailureKind.TIMED_OUT, _late(timeout, exchange.what_happened()))
                last, last_kind = f"cannot reach {spec.base_url}: {exc}", FailureKind.UNREACHABLE
                wait = _backoff(retry, None)
        if retry < MAX_RETRIES:
            time.sleep(max(0.0, min(wait, deadline - time.monotonic())))
    return _failed(last_kind, f"{last} (after {MAX_RETRIES} retries)")


class _Refused(Exception):
    """The server's answer cannot be used; the message says what it did and what to change."""

    def __init__(self, kind: FailureKind, reason: str) -> None:
        self.kind = kind
        super().__init__(reason)


class _Late(Exception):
    """The call's deadline passed while the answer was being read."""


def _late(timeout: float, what: str) -> str:
    return f"no whole answer within agents.call_timeout_seconds ({timeout:g} s): {what}"


class _Exchange:
    """One request and what the server did with it so far: what a failure names."""

    def __init__(
        self, *, name: str, spec: OpenAIAgentSpec, deadline: float, max_bytes: int
    ) -> None:
        self.name, self.spec, self.deadline, self.max_bytes = name, spec, deadline, max_bytes
        self.connected = False
        self.status: int | None = None
        self.announced: int | None = None
        self.received = 0
        self.comments = 0
        self.events = 0
        self.text_bytes = 0
        self.body: Iterator[bytes] = iter(())
        self.watchdog: Deadline | None = None

    def trace(self, watchdog: Deadline) -> Callable[[str, dict[str, Any]], None]:
        self.watchdog = watchdog

        def on_event(event: str, info: dict[str, Any]) -> None:
            if event == "connection.connect_tcp.complete":
                self.connected = True
            watchdog.trace(event, info)

        return on_event

    def answered(self, response: httpx.Response) -> None:
        self.status = response.status_code
        announced = response.headers.get("content-length", "")
        self.announced = int(announced) if announced.isdigit() else None

    def what_happened(self) -> str:
        if not self.connected:
            return f"no connection to {self.spec.base_url} was made"
        if self.status is None:
            return "the server took the request but sent no response headers"
        if self.comments and not self.events:
            return (
                f"the server sent only {self.comments} keep-alive comment line(s) "
                "(such as ': PROCESSING') and no answer"
            )
        if self.events:
            return (
                f"the answer was still streaming ({self.events} events, "
                f"{self.text_bytes:,} bytes of text so far)"
            )
        if self.announced is not None:
            return f"the server sent {self.received:,} of the {self.announced:,} bytes it announced"
        return f"the server sent {self.received:,} bytes of its answer, then nothing more"

    def chunks(self, limit: int | None) -> Iterator[bytes]:
        """The body as it arrives, never more than `limit` bytes (a stream's events are limited
        one by one instead), stopped at the deadline."""
        if limit is not None and self.announced is not None and self.announced > limit:
            raise _Refused(
                FailureKind.TOO_LARGE,
                f"the server announced a {self.announced:,}-byte answer, over what "
                f"agents.max_reply_bytes ({self.max_bytes:,}) allows; none of it was read",
            )
        for chunk in self.body:
            self.received += len(chunk)
            if time.monotonic() > self.deadline:
                raise _Late
            if limit is not None and self.received > limit:
                raise _Refused(
                    FailureKind.TOO_LARGE,
                    f"answer longer than agents.max_reply_bytes ({self.max_bytes:,} bytes): "
                    f"cut at {limit:,} bytes of what the server sent",
                )
            yield chunk
        if self.watchdog is not None and self.watchdog.passed:
            raise _Late  # the body "ended" because the watchdog shut the socket


def _answer_of(
    response: httpx.Response, exchange: _Exchange, on_output: Callable[[bytes], None]
) -> HttpAnswer:
    """The answer of a response that is not retried, or why it cannot be used."""
    status = response.status_code
    if 300 <= status < 400:
        location = response.headers.get("location")
        where = str(response.url.join(location)) if location else "no address (no Location)"
        raise _Refused(
            FailureKind.REFUSED,
            f"the server redirected the request (HTTP {status}) to {where}; redirects are not "
            f"followed (the API key would go with them): set agents.available.{exchange.name}"
            ".base_url to the address the API answers at",
        )
    if status >= 400:
        return _failed(FailureKind.REFUSED, _status_text(response, exchange))
    exchange.body = response.iter_bytes()
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        return _streamed(exchange, on_output)
    body = b"".join(exchange.chunks(_body_limit(exchange.max_bytes)))
    return _whole_answer(response, body, exchange, on_output)


def _body_limit(max_bytes: int) -> int:
    """A completion's JSON around `max_bytes` of text: escapes, ids, usage."""
    return 2 * max_bytes + ENVELOPE_BYTES


def _backoff(retry: int, retry_after: str | None) -> float:
    if retry_after is not None:
        try:
            return max(0.0, float(retry_after))
        except ValueError:
            pass  # an HTTP date: fall back to our own backoff
    base = RETRY_BASE_SECONDS * 2**retry
    return base + random.uniform(0, 0.2 * base)


def _streamed(exchange: _Exchange, on_output: Callable[[bytes], None]) -> HttpAnswer:
    """The server-sent events until `[DONE]`; comment lines only counted."""
    parts: list[str] = []
    size = 0
    finish: str | None = None
    tokens: int | None = None
    usage: Any = None
    done = False
    for event in _events(exchange):
        if event is None:
            done = True
            break
        if "error" in event:
            return _failed(
                FailureKind.INTERRUPTED, f"the server stopped with an error: {_message(event)}"
            )
        choice = _first_choice(event)
        delta = choice.get("delta")
        piece = delta.get("content") if isinstance(delta, dict) else None
        if isinstance(piece, str) and piece:
            data = piece.encode("utf-8")
            size += len(data)
            exchange.text_bytes = size
            if size > exchange.max_bytes:
                return _failed(
                    FailureKind.TOO_LARGE,
                    f"answer longer than agents.max_reply_bytes "
                    f"({exchange.max_bytes:,} bytes): cut there",
                )
            parts.append(piece)
            on_output(data)
        finish = _text_or(choice.get("finish_reason"), finish)
        usage = event.get("usage") or usage
        reported = completion_tokens(event.get("usage"))
        tokens = tokens if reported is None else reported
    report(from_openai(usage))
    text = "".join(parts).strip()
    if finish is None and not done:
        return _failed(
            FailureKind.INTERRUPTED,
            f"the server closed the stream mid-answer, after {size:,} bytes of text "
            "(no finish_reason, no [DONE])",
        )
    return HttpAnswer(
        text=text,
        failure=None if text else _EMPTY,
        finish_reason=finish,
        completion_tokens=tokens,
    )


def _whole_answer(
    response: httpx.Response,
    body: bytes,
    exchange: _Exchange,
    on_output: Callable[[bytes], None],
) -> HttpAnswer:
    """The answer of a server that does not stream: one completion as JSON."""
    if _is_html(response, body):
        raise _Refused(
            FailureKind.UNREADABLE,
            f"the server answered with an HTML page{_title(body)}, not a chat completion: "
            f"agents.available.{exchange.name}.base_url ({exchange.spec.base_url}) may not be "
            "the API's address (an OpenAI-compatible API's usually ends in /v1)",
        )
    try:
        payload = server_json(body)
        choice = payload["choices"][0]
        text = (choice["message"].get("content") or "").strip()
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        kind = response.headers.get("content-type") or "no content type"
        excerpt = body[:_EXCERPT].decode("utf-8", "replace")
        return _failed(FailureKind.UNREADABLE, f"not a chat completion ({kind}): {excerpt!r}")
    report(from_openai(payload.get("usage")))
    data = text.encode("utf-8")
    if len(data) > exchange.max_bytes:
        return _failed(
            FailureKind.TOO_LARGE,
            f"answer longer than agents.max_reply_bytes ({exchange.max_bytes:,} bytes): "
            f"{len(data):,} bytes",
        )
    on_output(data)
    return HttpAnswer(
        text=text,
        failure=None if text else _EMPTY,
        finish_reason=_text_or(choice.get("finish_reason"), None),
        completion_tokens=completion_tokens(payload.get("usage")),
    )


def _events(exchange: _Exchange) -> Iterator[dict[str, Any] | None]:
    """The JSON payloads of `data:` lines, then None at `[DONE]`; comments counted, blank lines
    skipped. No line may be longer than a whole answer could be."""
    for line in _lines(exchange, _body_limit(exchange.max_bytes)):
        if line.startswith(b":"):
            exchange.comments += 1
            continue
        if not line.startswith(b"data:"):
            continue
        data = line[5:].strip()
        if data == b"[DONE]":
            yield None
            return
        try:
            event = server_json(data)
        except (ValueError, RecursionError):
            continue
        if isinstance(event, dict):
            exchange.events += 1
            yield event


def _lines(exchange: _Exchange, longest: int) -> Iterator[bytes]:
    pending: list[bytes] = []
    size = 0
    for chunk in exchange.chunks(None):
        *lines, last = chunk.split(b"\n")
        if lines:
            lines[0] = b"".join((*pending, lines[0]))
            pending, size = [], 0
            yield from (line.rstrip(b"\r") for line in lines)
        pending.append(last)
        size += len(last)
        if size > longest:
            raise _Refused(
                FailureKind.TOO_LARGE,
                f"a line of the answer's stream is over {longest:,} bytes "
                f"(agents.max_reply_bytes is {exchange.max_bytes:,}): cut there",
            )
    if pending:
        yield b"".join(pending).rstrip(b"\r")


def _is_html(response: httpx.Response, body: bytes) -> bool:
    kind = response.headers.get("content-type", "").lower()
    return "html" in kind or body.lstrip()[:15].lower().startswith((b"<!doctype", b"<html"))


def _title(body: bytes) -> str:
    match = re.search(rb"<title[^>]*>([^<]{1,120})", body[:_ERROR_BYTES], re.IGNORECASE)
    return f" ({' '.join(match.group(1).decode('utf-8', 'replace').split())!r})" if match else ""


def _status_text(response: httpx.Response, exchange: _Exchange) -> str:
    """`HTTP <status>: <what the server said>`, from the first bytes of its body."""
    exchange.body = response.iter_bytes()
    body = b""
    with contextlib.suppress(_Refused):
        for chunk in exchange.chunks(_ERROR_BYTES * 16):
            body += chunk
            if len(body) >= _ERROR_BYTES:
                break
    if _is_html(response, body):
        detail = f"an HTML page{_title(body)}"
    else:
        try:
            detail = _message(server_json(body))
        except ValueError:
            detail = body.decode("utf-8", "replace")
    detail = " ".join(detail.split())[:_EXCERPT]
    return f"HTTP {response.status_code}" + (f": {detail}" if detail else "")


def server_json(data: bytes) -> Any:
    """A model server's JSON, every string made safe to write: a `\\ud800` escape decodes to a
    lone surrogate, which no UTF-8 file, terminal or page can take, so it becomes U+FFFD."""
    return _without_lone_surrogates(json.loads(data))


def _without_lone_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        if _SURROGATE.search(value) is None:
            return value
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_without_lone_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {
            _without_lone_surrogates(key): _without_lone_surrogates(item)
            for key, item in value.items()
        }
    return value


_SURROGATE = re.compile("[\ud800-\udfff]")


def _text_or(value: Any, default: str | None) -> str | None:
    return value if isinstance(value, str) and value else default


def _first_choice(event: dict[str, Any]) -> dict[str, Any]:
    """An event's first choice; empty for the usage event (no choices) or a malformed one."""
    choices = event.get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    return first if isinstance(first, dict) else {}


def _message(payload: Any) -> str:
    """OpenAI's `{"error": {"message": …}}`, or whatever the server sent."""
    if isinstance(payload, dict):
        error = payload.get("error", payload)
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return error["message"]
        if isinstance(error, str):
            return error
    return json.dumps(payload)[:_EXCERPT]


def _about_structure(text: str) -> bool:
    lowered = text.lower()
    return any(word in lowered for word in _STRUCTURE_WORDS)


def _other_form(current: str) -> str:
    return "json_object (llama.cpp's form) or none" if current == "json_schema" else "none"
