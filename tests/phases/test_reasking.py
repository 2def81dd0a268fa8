"""Asking an agent until its answer is usable: re-asking with the reason, then giving up."""

from __future__ import annotations

import pytest

from thoughtforge.errors import UnusableReply
from thoughtforge.phases.reasking import ask_until_usable, reask


def test_an_unusable_answer_is_asked_again_with_the_reason_then_given_up() -> None:
    asked: list[str] = []
    refusals: list[tuple[int, str]] = []

    def use(answer: str) -> int:
        raise UnusableReply(f"'{answer}' is not a number")

    with pytest.raises(UnusableReply, match="'two' is not a number"):
        ask_until_usable(
            lambda prompt: asked.append(prompt) or ["one", "two"][len(asked) - 1],
            lambda refusal: "Count." if refusal is None else reask("Count.", str(refusal)),
            use,
            attempts=2,
            on_unusable=lambda attempt, why: refusals.append((attempt, str(why))),
        )
    assert asked == [
        "Count.",
        "Count.\n\nYour previous answer could not be used: 'one' is not a number. "
        "Answer again with the JSON object only.",
    ]
    assert refusals == [(1, "'one' is not a number"), (2, "'two' is not a number")]


def test_the_first_usable_answer_wins() -> None:
    answers = iter(["x", "7", "8"])
    assert ask_until_usable(lambda p: next(answers), lambda r: "?", _number, attempts=3) == 7


def _number(answer: str) -> int:
    if not answer.isdigit():
        raise UnusableReply("not a number")
    return int(answer)
