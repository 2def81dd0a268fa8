"""Find the JSON objects in an agent's answer: agents wrap JSON in fences and prose."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

_FENCE = re.compile(r"```[ \t]*([\w+-]*)[ \t]*\r?\n(.*?)```", re.DOTALL)
_DECODER = json.JSONDecoder()


def json_objects(text: str) -> Iterator[dict[str, Any]]:
    """Most deliberate first: the whole answer, then ```json fences, then objects inside prose."""
    fenced = [body for lang, body in _FENCE.findall(text) if lang.lower() in ("", "json")]
    for chunk in (text, *fenced):
        try:
            value = json.loads(chunk)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            yield value
    yield from _embedded_objects(text)


def _embedded_objects(text: str) -> Iterator[dict[str, Any]]:
    """Each `{` that starts a whole JSON object; the decoder finds its end, so braces inside
    strings cannot fool it."""
    start = text.find("{")
    while start != -1:
        try:
            value, _ = _DECODER.raw_decode(text, start)
        except json.JSONDecodeError:
            pass
        else:
            if isinstance(value, dict):
                yield value
        start = text.find("{", start + 1)
