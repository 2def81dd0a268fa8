"""Find the JSON objects in an agent's reply: agents wrap JSON in fences and prose.

Any reply, of any size or shape, is read in linear time and bounded memory: one pass finds the
fenced blocks, one pass finds the outermost balanced `{…}` spans (which never overlap, so parsing
them all reads each character once), and JSON nested deeper than Python's parser can follow is
skipped as not JSON rather than raised.

Models write almost-JSON: raw newlines inside strings (llama.cpp's grammar lets them through),
a trailing comma, single quotes. Each candidate is read strictly first, then without the
control-character rule, and only when no candidate reads so is it repaired (json-repair, a
maintained library, rather than rules of our own). An reply whose first object never closes was
cut off: once nothing in it fits, `CutOffReply` says so, instead of the caller reporting the
missing fields of some inner object, which is what a cut reply looks like field by field.

json-repair's heuristics look ahead, and some inputs make that quadratic (or deeply recursive):
a hostile or broken reply could cost minutes of CPU per read. So each reply's repairs share a
budget counted in operations: the lines of Python the library runs (`REPAIR_STEPS`, metered with
a trace function); when it is spent, the repair stops and the chunk counts as not JSON. Each
distinct chunk is repaired once, and one nested deeper than any reply is not handed to it.
The bound, measured, is in `bench/bench_json_reader.py`.

An reply may hold more than one object meant as the reply: a model that repeats last round's
empty review and then writes this round's, or a draft and then its correction. Read first, the
stale one wins. `latest_first` reads such replies as a person would, by their last complete
object: the objects in the order they end in the text, last first (those inside a fence in
another language after all others), and an reply that ends inside an object that opens as JSON
(`{"key":`) is cut off at once, whatever complete objects came before it.
"""

from __future__ import annotations

import bisect
import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from thoughtforge.errors import CutOffReply

MAX_DEPTH = 200
"""Objects nested deeper than this inside a parsed value are not searched for candidates."""
MAX_SPANS = 1_000
"""Prose with more separate `{…}` spans than this is not an reply; the rest are not tried."""
MAX_REPAIR_CHARS = 200_000
"""Longer chunks are not repaired: no step's reply is that long, and repair is not free."""
REPAIR_STEPS = 6_000_000
"""Lines of json-repair one reply's repairs may run in all: a well-formed but broken reply of
about 90,000 characters (a trailing comma, unescaped quotes) needs about 65 a character."""


_LENIENT = json.JSONDecoder(strict=False)


def json_objects(text: str, *, latest_first: bool = False) -> Iterator[dict[str, Any]]:
    """Most deliberate first: the whole reply, ```json fences, then objects inside prose; each
    object also yields the objects nested in it, outermost first. Then the same chunks repaired;
    `CutOffReply` at the end when the reply stops inside its first object. With
    `latest_first`, the reply's last complete object first (`_latest_first`)."""
    if latest_first:
        yield from _latest_first(text)
        return
    spans, cut_off = _balanced_spans(text)
    unread: dict[str, None] = {}  # each distinct chunk once, in order
    for chunk in (text, *_fenced_blocks(text), *spans):
        value = _parse(chunk)
        if value is None:
            unread.setdefault(chunk.strip())
        else:
            yield from _objects_within(value)
    if cut_off:
        unread.pop(text.strip(), None)
    budget = _RepairBudget(REPAIR_STEPS)
    for chunk in unread:
        value = _repaired(chunk, budget)
        if value is not None:
            yield from _objects_within(value)
    if cut_off:
        raise CutOffReply(
            f"the reply was cut off: its JSON object never closes ({len(text)} characters "
            "in); a shorter reply, or a larger max_tokens, is needed"
        )


def _latest_first(text: str) -> Iterator[dict[str, Any]]:
    """The whole reply when it is JSON; else each balanced `{…}` span, the last first (each read
    strictly, then repaired), those inside a fence in another language (an example) after the
    rest. `CutOffReply` before anything when the reply ends inside an object opening as JSON."""
    whole = _parse(text)
    if whole is not None:
        yield from _objects_within(whole)
        return
    spans, unclosed = _span_positions(text)
    if any(_OPENS_OBJECT.match(text, start) for start in unclosed):
        raise CutOffReply(
            f"the reply was cut off: its last JSON object never closes ({len(text)} characters "
            "in); a shorter reply, or a larger max_tokens, is needed"
        )
    examples = _foreign_fences(text)
    latest = spans[-MAX_SPANS:][::-1]  # outermost spans never overlap: in order of their ends
    ordered = [s for s in latest if not _within(s, examples)]
    ordered += [s for s in latest if _within(s, examples)]
    budget = _RepairBudget(REPAIR_STEPS)
    for chunk in dict.fromkeys(text[start:end] for start, end in ordered):
        value = _parse(chunk)
        if value is None:
            value = _repaired(chunk.strip(), budget)
        if value is not None:
            yield from _objects_within(value)


_OPENS_OBJECT = re.compile(
    r"""\{\s*(?:\Z|"(?:[^"\\]|\\.)*(?:\Z|"\s*(?::|\Z))|'(?:[^'\\]|\\.)*(?:\Z|'\s*(?::|\Z)))"""
)
"""A `{` that opens a JSON object: its first key and colon, or the text ending on the way (a
brace in prose, `{"issues" is the key}`, opens none)."""


def _within(span: tuple[int, int], ranges: list[tuple[int, int]]) -> bool:
    """Whether `span` lies inside one of `ranges` (in order, never overlapping)."""
    at = bisect.bisect_right(ranges, span[0], key=lambda where: where[0]) - 1
    return at >= 0 and ranges[at][0] <= span[0] and span[1] <= ranges[at][1]


def _foreign_fences(text: str) -> list[tuple[int, int]]:
    """Where the ``` fences whose language is neither empty nor `json` stand in `text`."""
    ranges: list[tuple[int, int]] = []
    language: str | None = None
    opened = offset = 0
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if stripped.startswith("```"):
            if language is None:
                language, opened = stripped[3:].strip().lower(), offset
            else:
                if language not in ("", "json"):
                    ranges.append((opened, offset + len(line)))
                language = None
        offset += len(line)
    return ranges


def _parse(chunk: str) -> Any:
    try:
        return _LENIENT.decode(chunk.strip())
    except (ValueError, RecursionError):
        return None


def _repaired(chunk: str, budget: _RepairBudget) -> Any:
    """What json-repair makes of a chunk that looks like JSON, within the reply's budget; None
    when it is not JSON or the budget ran out first."""
    if budget.left <= 0 or len(chunk) > MAX_REPAIR_CHARS or not chunk.startswith(("{", "[")):
        return None
    if _deeper_than(chunk, MAX_DEPTH):
        return None  # no model nests so deep; json-repair would recurse until the budget ends
    from json_repair import repair_json  # 22 modules, loaded by the first reply that needs it

    try:
        with budget.metered():
            value = repair_json(chunk, return_objects=True)
    except (ValueError, RecursionError, _BudgetSpent):
        return None
    return value if isinstance(value, dict | list) and value else None


def _deeper_than(chunk: str, depth: int) -> bool:
    """Whether `{`/`[` outside strings nest deeper than `depth` anywhere in `chunk`."""
    level = 0
    for _, char in _brackets(chunk, "{["):
        level += 1 if char in "{[" else -1
        if level > depth:
            return True
    return False


def _brackets(text: str, openers: str) -> Iterator[tuple[int, str]]:
    """Each opener and each closer of an open one, with its index, outside JSON strings. A quote
    starts a string only inside a bracket: prose quotes around a brace do not hide it."""
    closers = {"{": "}", "[": "]"}
    ends = "".join(closers[o] for o in openers)
    level = 0
    in_string = escaped = False
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"' and level:
            in_string = True
        elif char in openers:
            level += 1
            yield index, char
        elif char in ends and level:
            level -= 1
            yield index, char


class _BudgetSpent(BaseException):
    """Not an `Exception`: no handler inside the library may swallow it."""


class _RepairBudget:
    """Lines of Python left to the reply's repairs."""

    def __init__(self, steps: int) -> None:
        self.left = steps

    @contextmanager
    def metered(self) -> Iterator[None]:
        """Count each line run in the frames called from here; stop them when none is left."""

        def count(frame: FrameType, event: str, arg: object) -> Any:
            if event == "line":
                self.left -= 1
                if self.left < 0:
                    raise _BudgetSpent
            return count

        previous = sys.gettrace()
        sys.settrace(count)
        try:
            yield
        finally:
            sys.settrace(previous)


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
    whether the first `{` of the text never closes (the reply was cut off inside it).

    A `{` that never closes (prose such as "{as asked:") does not hide a whole object after it:
    spans are taken from the innermost brace that closes, and only the outermost of those count.
    """
    spans, opened = _span_positions(text)
    first = text.find("{")
    opens_json = text[first + 1 :].lstrip()[:1] in ('"', "'")
    cut_off = bool(opened) and opened[0] == first and opens_json
    return [text[start:end] for start, end in spans[:MAX_SPANS]], cut_off


def _span_positions(text: str) -> tuple[list[tuple[int, int]], list[int]]:
    """Where the outermost balanced `{…}` spans start and end, in order; and where each `{` that
    never closes stands."""
    spans: list[tuple[int, int]] = []
    opened: list[int] = []
    for index, char in _brackets(text, "{"):
        if char == "{":
            opened.append(index)
        else:
            start = opened.pop()
            while spans and spans[-1][0] > start:
                spans.pop()  # nested inside this one
            spans.append((start, index + 1))
    return spans, opened


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
