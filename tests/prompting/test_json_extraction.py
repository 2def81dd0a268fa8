from __future__ import annotations

import contextlib
import json

import pytest

from thoughtforge.errors import CutOffAnswer
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


def test_any_answer_is_parsed_reading_each_character_a_bounded_number_of_times(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Before, 5 MB of `{` never finished: a decode attempt at every `{`, each failure costing a
    scan back to the start (JSONDecodeError counts the lines before its position)."""
    parsed: list[int] = []
    failed_at: list[int] = []
    real_decode, real_error = json_extraction._LENIENT.decode, json.JSONDecodeError.__init__

    def counting_decode(chunk: str) -> object:
        parsed.append(len(chunk))
        return real_decode(chunk)

    def counting_error(self: json.JSONDecodeError, msg: str, doc: str, pos: int) -> None:
        failed_at.append(pos)
        real_error(self, msg, doc, pos)

    monkeypatch.setattr(json_extraction._LENIENT, "decode", counting_decode)
    monkeypatch.setattr(json.JSONDecodeError, "__init__", counting_error)
    for text in ("{" * 200_000, "{}" * 100_000, "{" * 100_000 + "}" * 100_000, "```\n{\n" * 20_000):
        parsed.clear()
        failed_at.clear()
        found = _all_objects(text)
        assert all(obj == {} for obj in found)
        assert sum(parsed) <= 3 * len(text)
        assert sum(failed_at) <= 3 * len(text)


def test_an_object_after_an_unclosed_prose_brace_is_found() -> None:
    assert list(json_objects('Re {your question: here it is {"issues": []}')) == [{"issues": []}]


def _all_objects(text: str) -> list[dict[str, object]]:
    """Every object found, also in an answer that turns out to be cut off."""
    found: list[dict[str, object]] = []
    with contextlib.suppress(CutOffAnswer):
        found.extend(json_objects(text))
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
    with pytest.raises(CutOffAnswer, match="cut off: its JSON object never closes"):
        list(found)


def test_prose_with_an_unclosed_brace_is_not_taken_for_a_cut_off_answer() -> None:
    assert list(json_objects("Use {curly braces for templates, as asked")) == []
