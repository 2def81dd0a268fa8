from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable

import pytest

from thoughtforge.errors import CutOffReply
from thoughtforge.prompting import json_extraction, json_objects


def test_whole_answer_then_fences_then_prose_in_that_order() -> None:
    text = 'Sure! {"a": 1} and\n```json\n{"b": 2}\n```\nalso ```python\n{"c": 3}\n```'
    assert list(json_objects(text))[:2] == [{"b": 2}, {"a": 1}]


def test_braces_inside_strings_do_not_confuse_it() -> None:
    text = 'Here: {"description": "use {{name}} and } carefully", "n": 1} done'
    assert next(json_objects(text)) == {"description": "use {{name}} and } carefully", "n": 1}


def test_no_objects_and_non_object_json_yield_nothing() -> None:
    assert list(json_objects("no json here")) == []
    assert list(json_objects("[1, 2, 3]")) == []


def test_deeply_nested_json_is_skipped_not_raised() -> None:
    """Before, 100,000 nested `[` raised an uncaught RecursionError."""
    assert list(json_objects("[" * 100_000)) == []
    assert list(json_objects('{"a": ' * 50_000 + "1" + "}" * 50_000)) == []
    assert next(json_objects('{"a": ' * 150 + "1" + "}" * 150))["a"]["a"]


HOSTILE = (
    "{" * 200_000,
    "{}" * 100_000,
    "{" * 100_000 + "}" * 100_000,
    "```\n{\n" * 20_000,
    ('{"b"' * 4 + "}" * 4) * 12_500,  # a key with no colon before an object: quadratic repair
    ("{" * 10 + "}" * 10) * 10_000,
    '{"a": 1,}' * 22_000,
    "```json\n" + '{"a": "x", "b": [1, 2,]' * 8_000 + "\n```",
)


def test_any_answer_is_parsed_reading_each_character_a_bounded_number_of_times(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Before, 5 MB of `{` never finished: a decode attempt at every `{`, each failure costing a
    scan back to the start (JSONDecodeError counts the lines before its position). And
    `json_objects("{" * 200_000)` took 26.7 s of CPU inside json-repair (whose look-ahead is
    quadratic on some inputs): its repairs now run within a budget of lines, counted here as the
    Python calls they make, whatever the answer."""
    import json_repair

    parsed: list[int] = []
    failed_at: list[int] = []
    handed: list[int] = []
    real_decode, real_error = json_extraction._LENIENT.decode, json.JSONDecodeError.__init__
    real_repair = json_repair.repair_json

    def counting_decode(chunk: str) -> object:
        parsed.append(len(chunk))
        return real_decode(chunk)

    def counting_error(self: json.JSONDecodeError, msg: str, doc: str, pos: int) -> None:
        failed_at.append(pos)
        real_error(self, msg, doc, pos)

    def counting_repair(chunk: str, **options: object) -> object:
        handed.append(len(chunk))
        return real_repair(chunk, **options)  # type: ignore[call-overload]

    monkeypatch.setattr(json_extraction._LENIENT, "decode", counting_decode)
    monkeypatch.setattr(json.JSONDecodeError, "__init__", counting_error)
    monkeypatch.setattr(json_repair, "repair_json", counting_repair)
    monkeypatch.setattr(json_extraction, "REPAIR_STEPS", 50_000)
    for text in HOSTILE:
        for latest_first in (False, True):
            parsed.clear()
            failed_at.clear()
            handed.clear()
            calls = _python_calls(lambda t=text, last=latest_first: _all_objects(t, last))
            assert sum(parsed) <= 3 * len(text)
            assert sum(failed_at) <= 3 * len(text)
            assert sum(handed) <= len(text) + json_extraction.MAX_REPAIR_CHARS
            assert calls <= json_extraction.REPAIR_STEPS + 2 * len(text), text[:40]


def test_a_broken_answer_of_real_size_is_still_repaired() -> None:
    """The budget leaves room for what repair is for: a long answer with one defect."""
    slot = 'Paragraph of the plan, with "quoted" words and a list: a, b, c. ' * 30
    answer = json.dumps({"slots": {f"s{n}": slot for n in range(20)}, "stuck": False})
    found = next(json_objects(answer[:-1] + ",}"))
    assert found["stuck"] is False and len(found["slots"]) == 20


def _python_calls(read: Callable[[], object]) -> int:
    """The Python function calls `read` makes (a profile hook, apart from the reader's own
    trace hook): a repair that ran on would make ever more of them."""
    calls = [0]

    def count(frame: object, event: str, arg: object) -> None:
        if event == "call":
            calls[0] += 1

    sys.setprofile(count)
    try:
        read()
    finally:
        sys.setprofile(None)
    return calls[0]


def test_an_object_after_an_unclosed_prose_brace_is_found() -> None:
    assert list(json_objects('Re {your question: here it is {"issues": []}')) == [{"issues": []}]


def _all_objects(text: str, latest_first: bool = False) -> list[dict[str, object]]:
    """Every object found, also in an answer that turns out to be cut off."""
    found: list[dict[str, object]] = []
    with contextlib.suppress(CutOffReply):
        found.extend(json_objects(text, latest_first=latest_first))
    return found


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"issues": [],}', {"issues": []}),
        ("{'verdict': 'pass', 'reasons': []}", {"verdict": "pass", "reasons": []}),
        ('```json\n{"steps": [{"title": "a",},]}\n```', {"steps": [{"title": "a"}]}),
        ('{"description": "two\nlines"}', {"description": "two\nlines"}),
    ],
)
def test_almost_json_is_read(text: str, expected: dict[str, object]) -> None:
    assert next(json_objects(text)) == expected


def test_an_answer_cut_off_inside_its_object_says_so_after_its_complete_inner_objects() -> None:
    text = 'Review: {"issues": [{"severity": "minor", "description": "a"}, {"severity": "crit'
    found = json_objects(text)
    assert next(found) == {"severity": "minor", "description": "a"}
    with pytest.raises(CutOffReply, match="cut off: its JSON object never closes"):
        list(found)


def test_prose_with_an_unclosed_brace_is_not_taken_for_a_cut_off_answer() -> None:
    assert list(json_objects("Use {curly braces for templates, as asked")) == []


# --- the last complete object first (a review's answer) ----------------------------------------


def test_latest_first_reads_the_objects_from_the_end_of_the_answer() -> None:
    """Last round's empty review repeated before this round's findings: read by the findings."""
    text = 'Last time: {"issues": []}\nThis round:\n```json\n{"issues": [{"n": 1}]}\n```\nDone.'
    assert list(json_objects(text, latest_first=True)) == [
        {"issues": [{"n": 1}]},
        {"n": 1},
        {"issues": []},
    ]


def test_latest_first_reads_an_example_in_another_fence_language_last() -> None:
    text = 'Mine: {"issues": [1]}\nAn empty one reads:\n```text\n{"issues": []}\n```\n'
    assert next(json_objects(text, latest_first=True)) == {"issues": [1]}


def test_latest_first_reads_a_single_object_answer_and_repairs_the_last_one() -> None:
    assert list(json_objects('{"issues": []}', latest_first=True)) == [{"issues": []}]
    text = '{"issues": []} then, corrected: {"issues": [{"n": 2},],}'
    assert next(json_objects(text, latest_first=True)) == {"issues": [{"n": 2}]}


@pytest.mark.parametrize(
    "text",
    [
        '{"issues": []}\nNow the findings: {"issues": [{"severity": "critical", "desc',
        '{"issues": []}\n{"issues": [{"severity": "critical"}',
        '```json\n{"issues": [\n```',
        "{'issues': [",
    ],
)
def test_latest_first_an_answer_ending_inside_an_object_is_cut_off_whatever_came_before(
    text: str,
) -> None:
    """A complete object before a cut one must not stand for the answer: it is asked again."""
    with pytest.raises(CutOffReply, match="cut off: its last JSON object never closes"):
        next(json_objects(text, latest_first=True))


def test_latest_first_a_brace_in_prose_is_no_cut_off() -> None:
    text = 'The key {"issues" holds the list, and {as asked: {"issues": []}'
    assert list(json_objects(text, latest_first=True)) == [{"issues": []}]
