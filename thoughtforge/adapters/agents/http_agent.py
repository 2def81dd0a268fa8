"""Ask an OpenAI-compatible chat-completions endpoint (`type: openai`), streaming the reply.

httpx, not the `openai` package: Prefect already brings it in (one client fewer to keep), and
llama.cpp's own structured-output form (`json_object` with a `schema`) is not part of OpenAI's API,
so the SDK would only pass it through untyped. What the SDK would add is done here in a few lines,
as Prefect's own client does it: 429 and 5xx (and a dropped connection) are retried with
exponential backoff and jitter, a server's `Retry-After` wins.

The key is read from the environment variable the config names, at each call, and sent only in the
Authorization header; any failure text that could echo it has it replaced. The reply streams in as
server-sent events; each piece goes to `on_output` (the project's live preview) as it arrives. A
`finish_reason` of `length` is a cut-off reply, refused as such: half a JSON object is no reply.

Nothing the server does can hold the call past `agents.call_timeout_seconds`, retries included:
the deadline is checked as each piece arrives, and every socket of the call is shut down when it
passes (`adapters.deadline`), which ends a read blocked on comment lines, keep-alives, a trickled
body or silence. No reply is read past `agents.max_reply_bytes` (with room for a completion's
JSON around it), streamed or not, nor any line of a stream. Redirects are not followed (the key
would go with them). Each failure says what the server did, and which setting to change.

The request is built in `chat_request`, the exchange read within its deadline and cap in
`chat_exchange`, a streamed reply in `chat_stream`; here are the call, its retries and what each
failure means.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable
from typing import Any

import httpx

from thoughtforge.adapters.agents.agent_call import AgentCall, Attempt
from thoughtforge.adapters.agents.call_usage import completion_tokens, from_openai, report
from thoughtforge.adapters.agents.chat_exchange import (
    EMPTY,
    EXCERPT_CHARS,
    Exchange,
    HttpReply,
    Late,
    Refused,
    body_limit,
    failed,
    html_title,
    is_html,
    server_json,
    status_text,
    text_or,
)
from thoughtforge.adapters.agents.chat_request import request_body, sections_grammar
from thoughtforge.adapters.agents.chat_stream import read_stream
from thoughtforge.adapters.agents.image_parts import refusal_of_images, user_content
from thoughtforge.adapters.deadline import Deadline
from thoughtforge.config import AgentsConfig, OpenAIAgentSpec
from thoughtforge.core.agent_activity import stream_output
from thoughtforge.errors import AttemptFailure, FailureKind

RETRIED_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_RETRIES = 3
RETRY_BASE_SECONDS = 1.0
"""The first backoff; then twice as long each time (up to 20 % jitter); a Retry-After wins."""
CONNECT_TIMEOUT_SECONDS = 10.0
TEMPERATURE_STEP = 0.3
"""The temperature rises by this at each re-ask and retry: at temperature 0 the same prompt
gets the same reply, and a re-ask must be able to get another one."""
MAX_TEMPERATURE = 1.2
_STRUCTURE_WORDS = ("response_format", "json_schema", "schema", "grammar")


class HttpAgent:
    """An HTTP agent (`AgentKind`): one chat completion an attempt, `images` sent with it."""

    def __init__(self, name: str, spec: OpenAIAgentSpec, images: list[tuple[bytes, str]]) -> None:
        self.name, self.spec, self.images = name, spec, images

    def overhead_tokens(self) -> int:
        return 0

    def attempt(self, prompt: str, call: AgentCall, limits: AgentsConfig, number: int) -> Attempt:
        spec = self.spec
        content = user_content(prompt, self.images)
        raised = spec.temperature + TEMPERATURE_STEP * (call.reask + number - 1)
        reply = ask_endpoint(
            self.name,
            spec,
            content,
            schema=call.reply_schema,
            sections=call.sections,
            step=call.step,
            temperature=min(raised, max(MAX_TEMPERATURE, spec.temperature)),
            timeout=limits.call_timeout_seconds,
            max_bytes=limits.max_reply_bytes,
            on_output=lambda chunk: stream_output(call.project_dir, chunk),
        )
        if reply.failure is None:
            return Attempt(reply=reply.text)
        refused = isinstance(content, list) and refusal_of_images(reply.failure.reason, self.name)
        if refused:
            return Attempt(failure=AttemptFailure(kind=FailureKind.REFUSED, reason=refused))
        return Attempt(failure=reply.failure)


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
) -> HttpReply:
    """One chat completion; every failure is returned with its kind, its words naming what to
    change."""
    key = os.environ.get(spec.api_key_env, "") if spec.api_key_env else ""
    if spec.api_key_env and not key:
        return failed(
            FailureKind.UNAVAILABLE, f"environment variable {spec.api_key_env} is not set"
        )
    body = request_body(spec, prompt, schema, step, temperature)
    if sections and spec.section_grammar:
        body["grammar"] = sections_grammar(sections)
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    reply = _with_retries(name, spec, body, headers, timeout, max_bytes, on_output)
    if reply.failure is not None:
        kind, reason = reply.failure.kind, reply.failure.reason
        reason = reason.replace(key, "***") if key else reason
        if schema is not None and _about_structure(reason):
            kind, reason = (
                FailureKind.REFUSED,
                f"the server refused structured output ({reason}); set "
                f"agents.available.{name}.structured_output to "
                f"{_other_form(spec.structured_output)}",
            )
        return reply.model_copy(update={"failure": AttemptFailure(kind=kind, reason=reason)})
    if reply.finish_reason == "length":
        tokens = reply.completion_tokens or spec.max_tokens
        cut_off = AttemptFailure(
            kind=FailureKind.CUT_OFF,
            reason=f"reply cut off at {tokens} tokens (agents.available.{name}.max_tokens "
            f"is {spec.max_tokens}; context_window_tokens {spec.context_window_tokens})",
        )
        return reply.model_copy(update={"failure": cut_off})
    return reply


def _with_retries(
    name: str,
    spec: OpenAIAgentSpec,
    body: dict[str, Any],
    headers: dict[str, str],
    timeout: float,
    max_bytes: int,
    on_output: Callable[[bytes], None],
) -> HttpReply:
    url = f"{spec.base_url}/chat/completions"
    deadline = time.monotonic() + timeout
    last, last_kind = "", FailureKind.UNREACHABLE
    for retry in range(MAX_RETRIES + 1):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return failed(
                FailureKind.TIMED_OUT, _late(timeout, last or "the retries took all of it")
            )
        exchange = Exchange(name=name, spec=spec, deadline=deadline, max_bytes=max_bytes)
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
                    exchange.replied(response)
                    if response.status_code not in RETRIED_STATUSES:
                        return _reply_of(response, exchange, on_output)
                    last, last_kind = status_text(response, exchange), FailureKind.REFUSED
                    if _about_structure(last) and "response_format" in body:
                        return failed(FailureKind.REFUSED, last)
                    wait = _backoff(retry, response.headers.get("retry-after"))
            except Refused as refused:
                return failed(refused.kind, str(refused))
            except (Late, httpx.TimeoutException):
                return failed(FailureKind.TIMED_OUT, _late(timeout, exchange.what_happened()))
            except httpx.TransportError as exc:
                if watchdog.passed:
                    return failed(FailureKind.TIMED_OUT, _late(timeout, exchange.what_happened()))
                last, last_kind = f"cannot reach {spec.base_url}: {exc}", FailureKind.UNREACHABLE
                wait = _backoff(retry, None)
        if retry < MAX_RETRIES:
            time.sleep(max(0.0, min(wait, deadline - time.monotonic())))
    return failed(last_kind, f"{last} (after {MAX_RETRIES} retries)")


def _late(timeout: float, what: str) -> str:
    return f"no whole reply within agents.call_timeout_seconds ({timeout:g} s): {what}"


def _reply_of(
    response: httpx.Response, exchange: Exchange, on_output: Callable[[bytes], None]
) -> HttpReply:
    """The reply of a response that is not retried, or why it cannot be used."""
    status = response.status_code
    if 300 <= status < 400:
        location = response.headers.get("location")
        where = str(response.url.join(location)) if location else "no address (no Location)"
        raise Refused(
            FailureKind.REFUSED,
            f"the server redirected the request (HTTP {status}) to {where}; redirects are not "
            f"followed (the API key would go with them): set agents.available.{exchange.name}"
            ".base_url to the address the API answers at",
        )
    if status >= 400:
        return failed(FailureKind.REFUSED, status_text(response, exchange))
    exchange.body = response.iter_bytes()
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        return read_stream(exchange, on_output)
    body = b"".join(exchange.chunks(body_limit(exchange.max_bytes)))
    return _whole_reply(response, body, exchange, on_output)


def _whole_reply(
    response: httpx.Response,
    body: bytes,
    exchange: Exchange,
    on_output: Callable[[bytes], None],
) -> HttpReply:
    """The reply of a server that does not stream: one completion as JSON."""
    if is_html(response, body):
        raise Refused(
            FailureKind.UNREADABLE,
            f"the server replied with an HTML page{html_title(body)}, not a chat completion: "
            f"agents.available.{exchange.name}.base_url ({exchange.spec.base_url}) may not be "
            "the API's address (an OpenAI-compatible API's usually ends in /v1)",
        )
    try:
        payload = server_json(body)
        choice = payload["choices"][0]
        text = (choice["message"].get("content") or "").strip()
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        kind = response.headers.get("content-type") or "no content type"
        excerpt = body[:EXCERPT_CHARS].decode("utf-8", "replace")
        return failed(FailureKind.UNREADABLE, f"not a chat completion ({kind}): {excerpt!r}")
    report(from_openai(payload.get("usage")))
    data = text.encode("utf-8")
    if len(data) > exchange.max_bytes:
        return failed(
            FailureKind.TOO_LARGE,
            f"reply longer than agents.max_reply_bytes ({exchange.max_bytes:,} bytes): "
            f"{len(data):,} bytes",
        )
    on_output(data)
    return HttpReply(
        text=text,
        failure=None if text else EMPTY,
        finish_reason=text_or(choice.get("finish_reason"), None),
        completion_tokens=completion_tokens(payload.get("usage")),
    )


def _backoff(retry: int, retry_after: str | None) -> float:
    if retry_after is not None:
        try:
            return max(0.0, float(retry_after))
        except ValueError:
            pass  # an HTTP date: fall back to our own backoff
    base = RETRY_BASE_SECONDS * 2.0**retry
    return base + random.uniform(0, 0.2 * base)


def _about_structure(text: str) -> bool:
    lowered = text.lower()
    return any(word in lowered for word in _STRUCTURE_WORDS)


def _other_form(current: str) -> str:
    return "json_object (llama.cpp's form) or none" if current == "json_schema" else "none"
