from __future__ import annotations

from thoughtforge.prompting import json_objects


def test_whole_answer_then_fences_then_prose_in_that_order() -> None:
    text = 'Sure! {"a": 1} and\n```json\n{"b": 2}\n```\nalso ```python\n{"c": 3}\n```'
    assert list(json_objects(text))[:2] == [{"b": 2}, {"a": 1}]


def test_braces_inside_strings_do_not_confuse_it() -> None:
    text = 'Here: {"description": "use {{name}} and } carefully", "n": 1} done'
    assert next(json_objects(text)) == {"description": "use {{name}} and } carefully", "n": 1}


def test_no_objects_and_non_object_json_yield_nothing() -> None:
    assert list(json_objects("no json here")) == []
    assert list(json_objects("[1, 2, 3]")) == []
