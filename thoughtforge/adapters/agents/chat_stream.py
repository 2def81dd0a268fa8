"""A streamed reply: the server-sent events of a chat completion until `[DONE]`, each piece of
text handed on as it arrives, no line longer than a whole reply could be, no text past
`agents.max_reply_bytes`; comment lines (keep-alives) only counted."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from thoughtforge.adapters.agents.call_usage import completion_tokens, from_openai, report
from thoughtforge.adapters.agents.chat_exchange import (
    EMPTY,
    Exchange,
    HttpReply,
    Refused,
    body_limit,
    error_message,
    failed,
    server_json,
    text_or,
)
from thoughtforge.errors import FailureKind


def read_stream(exchange: Exchange, on_output: Callable[[bytes], None]) -> HttpReply:
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
            return failed(
                FailureKind.INTERRUPTED, f"the server stopped with an error: {error_message(event)}"
            )
        choice = _first_choice(event)
        delta = choice.get("delta")
        piece = delta.get("content") if isinstance(delta, dict) else None
        if isinstance(piece, str) and piece:
            data = piece.encode("utf-8")
            size += len(data)
            exchange.text_bytes = size
            if size > exchange.max_bytes:
                return failed(
                    FailureKind.TOO_LARGE,
                    f"reply longer than agents.max_reply_bytes "
                    f"({exchange.max_bytes:,} bytes): cut there",
                )
            parts.append(piece)
            on_output(data)
        finish = text_or(choice.get("finish_reason"), finish)
        usage = event.get("usage") or usage
        reported = completion_tokens(event.get("usage"))
        tokens = tokens if reported is None else reported
    report(from_openai(usage))
    text = "".join(parts).strip()
    if finish is None and not done:
        return failed(
            FailureKind.INTERRUPTED,
            f"the server closed the stream mid-reply, after {size:,} bytes of text "
            "(no finish_reason, no [DONE])",
        )
    return HttpReply(
        text=text,
        failure=None if text else EMPTY,
        finish_reason=finish,
        completion_tokens=tokens,
    )


def _events(exchange: Exchange) -> Iterator[dict[str, Any] | None]:
    """The JSON payloads of `data:` lines, then None at `[DONE]`; comments counted, blank lines
    skipped. No line may be longer than a whole reply could be."""
    for line in _lines(exchange, body_limit(exchange.max_bytes)):
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


def _lines(exchange: Exchange, longest: int) -> Iterator[bytes]:
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
            raise Refused(
                FailureKind.TOO_LARGE,
                f"a line of the reply's stream is over {longest:,} bytes "
                f"(agents.max_reply_bytes is {exchange.max_bytes:,}): cut there",
            )
    if pending:
        yield b"".join(pending).rstrip(b"\r")


def _first_choice(event: dict[str, Any]) -> dict[str, Any]:
    """An event's first choice; empty for the usage event (no choices) or a malformed one."""
    choices = event.get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    return first if isinstance(first, dict) else {}
