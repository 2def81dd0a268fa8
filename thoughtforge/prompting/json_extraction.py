"""Find the JSON objects in an agent's answer: agents wrap JSON in fences and prose.

Any answer, of any size or shape, is read in linear time and bounded memory: one pass finds the
fenced blocks, one pass finds the outermost balanced `{…}` spans (which never overlap, so parsing
them all reads each character once), and JSON nested deeper than Python's parser can follow is
skipped as not JSON rather than raised.

Models write almost-JSON: raw newlines inside strings (llama.cpp's grammar lets them through),
a trailing comma, single quotes. Each candidate is read strictly first, then without the
control-character rule, and only when no candidate reads so is it repaired (json-repair, a
maintained library, rather than rules of our own). An answer whose first object never closes was
cut off: once nothing in it fits, `CutOffAnswer` says so, instead of the caller reporting the
missing fields of some inner object, which is what a cut answer looks like field by field.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from thoughtforge.errors import CutOffAnswer

MAX_DEPTH = 200
"""Objects nested deeper than this inside a parsed value are not searched for candidates."""
MAX_SPANS = 1_000
"""Prose with more separate `{…}` spans than this is not an answer; the rest are not tried."""
MAX_REPAIR_CHARS = 200_000
"""Longer chunks are not repaired: no step's answer is that long, and repair is not free."""


_LENIENT = json.JSONDecoder(strict=False)


def json_objects(text: str) -> Iterator[dict[str, Any]]:
    """Most deliberate first: the whole answer, ```json fences, then objects inside prose; each
    object also yields the objects nested in it, outermost first. Then the same chunks repaired;
    `CutOffAnswer` at the end when the answer stops inside its first object."""
    spans, cut_off = _balanced_spans(text)
    unread: list[str] = []
    for chunk in (text, *_fenced_blocks(text), *spans):
        value = _parse(chunk)
        if value is None:
            unread.append(chunk)
        else:
            yield from _objects_within(value)
    for chunk in unread:
        value = None if cut_off and chunk is text else _repaired(chunk)
        if value is not None:
            yield from _objects_within(value)
    if cut_off:
        raise CutOffAnswer(
            f"the answer was cut off: its JSON object never closes ({len(text)} characters "
            "in); a shorter answer, or a larger max_tokens, is needed"
        )


def _parse(chunk: str) -> Any:
    try:
        return _LENIENT.decode(chunk.strip())
    except (ValueError, RecursionError):
        return None


def _repaired(chunk: str) -> Any:
    """What json-repair makes of a chunk that looks like JSON; None when it is not."""
    if len(chunk) > MAX_REPAIR_CHARS or not chunk.lstrip().startswith(("{", "[")):
        return None
    from json_repair import repair_json  # 22 modules, loaded by the first answer that needs it

    try:
        value = repair_json(chunk, return_objects=True)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict | list) and value else None


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


def _balanced_spans(text: str) -> tuple[list[str], bool]:
    """Outermost `{…}` spans whose braces balance, ignoring braces inside JSON strings; and
    whether the first `{` of the text never closes (the answer was cut off inside it).

    A `{` that never closes (prose such as "{as asked:") does not hide a whole object after it:
    spans are taken from the innermost brace that closes, and only the outermost of those count.
    """
    spans: list[tuple[int, int]] = []
    opened: list[int] = []
    first = text.find("{")
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
    opens_json = text[first + 1 :].lstrip()[:1] in ('"', "'")
    cut_off = bool(opened) and opened[0] == first and opens_json
    return [text[start:end] for start, end in spans[:MAX_SPANS]], cut_off


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
