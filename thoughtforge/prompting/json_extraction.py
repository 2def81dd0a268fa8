"""Find the JSON objects in an agent's answer: agents wrap JSON in fences and prose.

Any answer, of any size or shape, is read in linear time and bounded memory: one pass finds the
fenced blocks, one pass finds the outermost balanced `{…}` spans (which never overlap, so parsing
them all reads each character once), and JSON nested deeper than Python's parser can follow is
skipped as not JSON rather than raised.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

MAX_DEPTH = 200
"""Objects nested deeper than this inside a parsed value are not searched for candidates."""
MAX_SPANS = 1_000
"""Prose with more separate `{…}` spans than this is not an answer; the rest are not tried."""


def json_objects(text: str) -> Iterator[dict[str, Any]]:
    """Most deliberate first: the whole answer, ```json fences, then objects inside prose; each
    object also yields the objects nested in it, outermost first."""
    for chunk in (text, *_fenced_blocks(text), *_balanced_spans(text)):
        value = _parse(chunk)
        if value is not None:
            yield from _objects_within(value)


def _parse(chunk: str) -> Any:
    try:
        return json.loads(chunk)
    except (ValueError, RecursionError):
        return None


def _fenced_blocks(text: str) -> Iterator[str]:
    """Bodies of ``` fences whose language is empty or `json`, found line by line."""
    language: str | None = None  # None outside a fence
    body: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped.startswith("```"):
            body.append(line)
        elif language is None:
            language, body = stripped[3:].strip().lower(), []
        else:
            if language in ("", "json"):
                yield "\n".join(body)
            language = None


def _balanced_spans(text: str) -> Iterator[str]:
    """Outermost `{…}` spans whose braces balance, ignoring braces inside JSON strings.

    A `{` that never closes (prose such as "{as asked:") does not hide a whole object after it:
    spans are taken from the innermost brace that closes, and only the outermost of those count.
    """
    spans: list[tuple[int, int]] = []
    opened: list[int] = []
    in_string = escaped = False
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"' and opened:
            in_string = True
        elif char == "{":
            opened.append(index)
        elif char == "}" and opened:
            start = opened.pop()
            while spans and spans[-1][0] > start:
                spans.pop()  # nested inside this one
            spans.append((start, index + 1))
    for start, end in spans[:MAX_SPANS]:
        yield text[start:end]


def _objects_within(value: Any) -> Iterator[dict[str, Any]]:
    """`value` if it is an object, then the objects nested in it, breadth first."""
    level = [value]
    for _ in range(MAX_DEPTH):
        if not level:
            return
        deeper: list[Any] = []
        for item in level:
            if isinstance(item, dict):
                yield item
                deeper.extend(item.values())
            elif isinstance(item, list):
                deeper.extend(item)
        level = deeper
