"""The CPU one read of an agent's answer costs (`json_objects`), for the worst answers we could
construct, up to `agents.max_reply_bytes` (2,000,000 by default).

Each shape is one a hostile or broken model could send: brace runs that make json-repair recurse,
keys without colons before an object (its look-ahead turns quadratic), unclosed strings, fences,
and a well-formed answer with one defect (what repair is for). Printed: the characters, the CPU
seconds of the read (`time.process_time`), and the repair lines it ran out of `REPAIR_STEPS`.

Run: .venv/bin/python bench/bench_json_reader.py
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable

from thoughtforge.errors import CutOffReply
from thoughtforge.prompting import json_extraction, json_objects

MAX_REPLY = 2_000_000


def _fill(unit: str, size: int, head: str = "") -> str:
    return head + unit * ((size - len(head)) // len(unit))


def _broken_plan(size: int) -> str:
    """A real-looking builder answer of `size` characters with a trailing comma."""
    slot = 'A paragraph of plan text, with "quotes" and words. ' * 40
    slots = {f"s{i}": slot for i in range(max(1, size // (len(slot) + 12)))}
    return json.dumps({"slots": slots, "stuck": False}, indent=2)[:-2] + ",\n}"


SHAPES: dict[str, Callable[[int], str]] = {
    "open braces": lambda n: "{" * n,
    "open brackets": lambda n: "[" * n,
    "key, no colon, object (quadratic in json-repair)": lambda n: _fill('{"b"' * 4 + "}" * 4, n),
    "same, inside an array": lambda n: _fill('{"b"' * 4 + "}" * 4, n, head='{"a":['),
    "balanced brace runs": lambda n: _fill("{" * 10 + "}" * 10, n),
    "unclosed string of quotes": lambda n: _fill('x"', n, head='{"a": "'),
    "fences of broken objects": lambda n: _fill('```json\n{"a": 1,}\n```\n', n),
    "many small broken spans": lambda n: _fill('{"a" {"b"} ', n),
    "well-formed plan, trailing comma": _broken_plan,
}


def _read(text: str) -> tuple[float, int]:
    spent = [0]
    real = json_extraction._RepairBudget.metered

    def metered(budget: json_extraction._RepairBudget):  # type: ignore[no-untyped-def]
        before = budget.left
        with real(budget):
            try:
                yield
            finally:
                spent[0] += before - max(budget.left, 0)

    json_extraction._RepairBudget.metered = contextlib.contextmanager(metered)  # type: ignore[method-assign]
    started = time.process_time()
    with contextlib.suppress(CutOffReply):
        list(json_objects(text))
    seconds = time.process_time() - started
    json_extraction._RepairBudget.metered = real  # type: ignore[method-assign]
    return seconds, spent[0]


def main() -> None:
    print(f"{'shape':52} {'chars':>10} {'CPU s':>7} {'repair lines':>13}")
    worst = 0.0
    for name, shape in SHAPES.items():
        for size in (20_000, 200_000, MAX_REPLY):
            text = shape(size)
            seconds, lines = _read(text)
            worst = max(worst, seconds)
            print(f"{name:52} {len(text):>10,} {seconds:>7.2f} {lines:>13,}", flush=True)
    print(
        f"worst: {worst:.2f} s of CPU for one read (REPAIR_STEPS {json_extraction.REPAIR_STEPS:,})"
    )


if __name__ == "__main__":
    main()
