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
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
from pydantic import BaseModel

from thoughtforge.config import OpenAIAgentSpec

RETRIED_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_RETRIES = 3
RETRY_BASE_SECONDS = 1.0
"""The first backoff; then twice as long each time (up to 20 % jitter); a Retry-After wins."""
CONNECT_TIMEOUT_SECONDS = 10.0
MAX_SCHEMA_ITEMS = 8
GRAMMAR_LINES = 4
GRAMMAR_LINE_CHARS = 200
_EXCERPT = 300
CUT_OFF = "answer cut off"
_STRUCTURE_WORDS = ("response_format", "json_schema", "schema", "grammar")


class HttpAnswer(BaseModel):
    """The answer, or why there is none; `seconds` counts only the successful exchange."""

    text: str = ""
    failure: str | None = None
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
    """One chat completion; every failure is returned as text naming what to change."""
    key = os.environ.get(spec.api_key_env, "") if spec.api_key_env else ""
    if spec.api_key_env and not key:
        return HttpAnswer(failure=f"environment variable {spec.api_key_env} is not set")
    body = _request_body(spec, prompt, schema, step, temperature)
    if sections and spec.section_grammar:
        body["grammar"] = sections_grammar(sections)
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    deadline = time.monotonic() + timeout
    answer = _with_retries(spec, body, headers, deadline, max_bytes, on_output)
    if answer.failure is not None:
        failure = answer.failure.replace(key, "***") if key else answer.failure
        if schema is not None and _about_structure(failure):
            failure = (
                f"the server refused structured output ({failure}); set "
                f"agents.available.{name}.structured_output to "
                f"{_other_form(spec.structured_output)}"
            )
        return answer.model_copy(update={"failure": failure})
    if answer.finish_reason == "length":
        tokens = answer.completion_tokens or spec.max_tokens
        return answer.model_copy(
            update={
                "failure": f"{CUT_OFF} at {tokens} tokens (agents.available.{name}.max_tokens "
                f"is {spec.max_tokens}; context_window_tokens {spec.context_window_tokens})"
            }
        )
    return answer


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
        "temperature": temperature,
    }
    if spec.max_tokens is not None:
        body["max_tokens"] = spec.max_tokens
    if schema is not None and spec.structured_output != "none":
        body["response_format"] = response_format(spec, schema, step)
    return body


def _with_retries(
    spec: OpenAIAgentSpec,
    body: dict[str, Any],
    headers: dict[str, str],
    deadline: float,
    max_bytes: int,
    on_output: Callable[[bytes], None],
) -> HttpAnswer:
    url = f"{spec.base_url}/chat/completions"
    last = ""
    for retry in range(MAX_RETRIES + 1):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return HttpAnswer(failure=f"timed out ({last})" if last else "timed out")
        timeout = httpx.Timeout(remaining, connect=min(CONNECT_TIMEOUT_SECONDS, remaining))
        try:
            with (
                httpx.Client(timeout=timeout) as client,
                client.stream("POST", url, json=body, headers=headers) as response,
            ):
                if response.status_code in RETRIED_STATUSES:
                    response.read()
                    last = _status_text(response)
                    if _about_structure(last) and "response_format" in body:
                        return HttpAnswer(failure=last)
                    wait = _backoff(retry, response.headers.get("retry-after"))
                else:
                    if response.status_code >= 400:
                        response.read()
                        return HttpAnswer(failure=_status_text(response))
                    return _read_answer(response, deadline, max_bytes, on_output)
        except httpx.TimeoutException:
            return HttpAnswer(failure="timed out waiting for the server")
        except httpx.TransportError as exc:
            last = f"cannot reach {spec.base_url}: {exc}"
            wait = _backoff(retry, None)
        if retry < MAX_RETRIES:
            time.sleep(max(0.0, min(wait, deadline - time.monotonic())))
    return HttpAnswer(failure=f"{last} (after {MAX_RETRIES} retries)")


def _backoff(retry: int, retry_after: str | None) -> float:
    if retry_after is not None:
        try:
            return max(0.0, float(retry_after))
        except ValueError:
            pass  # an HTTP date: fall back to our own backoff
    base = RETRY_BASE_SECONDS * 2**retry
    return base + random.uniform(0, 0.2 * base)


def _read_answer(
    response: httpx.Response,
    deadline: float,
    max_bytes: int,
    on_output: Callable[[bytes], None],
) -> HttpAnswer:
    """The streamed events, or a whole JSON body from a server that does not stream."""
    if not response.headers.get("content-type", "").startswith("text/event-stream"):
        response.read()
        return _whole_answer(response.text, on_output)
    parts: list[str] = []
    size = 0
    finish: str | None = None
    tokens: int | None = None
    for event in _events(response.iter_lines()):
        if time.monotonic() > deadline:
            return HttpAnswer(text="".join(parts), failure="timed out while the answer streamed")
        if "error" in event:
            return HttpAnswer(failure=f"the server stopped with an error: {_message(event)}")
        choice = (event.get("choices") or [{}])[0]
        piece = (choice.get("delta") or {}).get("content") or ""
        if piece:
            data = piece.encode("utf-8")
            size += len(data)
            if size > max_bytes:
                return HttpAnswer(
                    failure=f"answer longer than agents.max_reply_bytes ({max_bytes:,} bytes)"
                )
            parts.append(piece)
            on_output(data)
        finish = choice.get("finish_reason") or finish
        tokens = (event.get("usage") or {}).get("completion_tokens", tokens)
    text = "".join(parts).strip()
    return HttpAnswer(
        text=text,
        failure=None if text else "empty answer",
        finish_reason=finish,
        completion_tokens=tokens,
    )


def _whole_answer(body: str, on_output: Callable[[bytes], None]) -> HttpAnswer:
    try:
        payload = json.loads(body)
        choice = payload["choices"][0]
        text = (choice["message"].get("content") or "").strip()
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return HttpAnswer(failure=f"not a chat completion: {body[:_EXCERPT]!r}")
    on_output(text.encode("utf-8"))
    return HttpAnswer(
        text=text,
        failure=None if text else "empty answer",
        finish_reason=choice.get("finish_reason"),
        completion_tokens=(payload.get("usage") or {}).get("completion_tokens"),
    )


def _events(lines: Iterator[str]) -> Iterator[dict[str, Any]]:
    """The JSON payloads of `data:` lines, until `[DONE]`; comments and blank lines skipped."""
    for line in lines:
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            return
        try:
            event = json.loads(data)
        except ValueError:
            continue
        if isinstance(event, dict):
            yield event


def _status_text(response: httpx.Response) -> str:
    try:
        detail = _message(response.json())
    except ValueError:
        detail = response.text
    detail = " ".join(detail.split())[:_EXCERPT]
    return f"HTTP {response.status_code}" + (f": {detail}" if detail else "")


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
