"""The chat-completions request ThoughtForge sends: the body (the prompt, a streamed reply with
its usage, the reply's room) and a schema or section grammar in the form the server takes."""

from __future__ import annotations

import json
from typing import Any

from thoughtforge.config import OpenAIAgentSpec

MAX_SCHEMA_ITEMS = 8
GRAMMAR_LINES = 4
GRAMMAR_LINE_CHARS = 200


def request_body(
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


def response_format(spec: OpenAIAgentSpec, schema: dict[str, Any], step: str) -> dict[str, Any]:
    """The schema in the form the server takes: OpenAI's, or llama.cpp's own."""
    if spec.max_string_chars is not None:
        schema = bounded(schema, spec.max_string_chars)
    if spec.structured_output == "json_object":
        return {"type": "json_object", "schema": schema}
    name = "".join(c if c.isalnum() or c in "_-" else "_" for c in step)[:64] or "answer"
    return {"type": "json_schema", "json_schema": {"name": name, "schema": schema}}


def bounded(schema: Any, max_chars: int) -> Any:
    """`schema` with each string's `maxLength` at most `max_chars` and a `maxItems` on each array
    that has none: an reply's own looser limit (a dismissal's 2,000-character reason) would
    reach llama.cpp as a grammar too large to parse, and its server dies."""
    if isinstance(schema, list):
        return [bounded(item, max_chars) for item in schema]
    if not isinstance(schema, dict):
        return schema
    copy = {key: bounded(value, max_chars) for key, value in schema.items()}
    if copy.get("type") == "string" and "enum" not in copy and "const" not in copy:
        copy["maxLength"] = min(copy.get("maxLength", max_chars), max_chars)
    if copy.get("type") == "array":
        copy.setdefault("maxItems", MAX_SCHEMA_ITEMS)
    return copy


def sections_grammar(headings: tuple[str, ...]) -> str:
    """A GBNF grammar for an reply made of exactly `headings` as `##` sections, in order, each
    with one to `GRAMMAR_LINES` lines of at most `GRAMMAR_LINE_CHARS` characters: the shape the
    step checks, and an end the model cannot ramble past."""
    rules = [f"root ::= {' '.join(f'section{n}' for n in range(len(headings)))}"]
    for number, heading in enumerate(headings):
        literal = json.dumps(f"## {heading}\n")
        rules.append(f'section{number} ::= {literal} line{{1,{GRAMMAR_LINES}}} "\\n"')
    rules.append(f'line ::= [^#\\n] [^\\n]{{0,{GRAMMAR_LINE_CHARS}}} "\\n"')
    return "\n".join(rules) + "\n"
