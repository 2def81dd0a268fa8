"""Asking an agent until its answer is usable: the re-ask says why the last answer was refused
(quoting how it began), each re-ask is counted (an HTTP agent answers it at a higher
temperature), and after the last attempt the refusal is raised."""

from __future__ import annotations

from collections.abc import Callable
from itertools import count
from typing import TypeVar

from thoughtforge.adapters.agents import AgentCall
from thoughtforge.errors import UnusableReply

T = TypeVar("T")
JSON_ONLY = "Answer again with the JSON object only."
QUOTED_CHARS = 160
UNUSABLE_HELP = (
    "What helps: another agent (a larger model), or a larger context window or max_tokens for "
    "this one; switch with `thoughtforge agent PROJECT NAME` (or the halt form), then resume."
)


def reask(prompt: str, refusal: UnusableReply | str, again: str = JSON_ONLY) -> str:
    """The prompt once more, with why the last answer could not be used (quoting how it began, so
    the re-ask differs from the ask even at temperature 0) and what to do instead."""
    answer = refusal.reply if isinstance(refusal, UnusableReply) else ""
    began = " ".join(answer.split())[:QUOTED_CHARS]
    quoted = f' (it began: "{began}{"…" if len(answer) > len(began) else ""}")' if began else ""
    return f"{prompt}\n\nYour previous answer{quoted} could not be used: {refusal}. {again}"


def asking(
    ask: Callable[[str, AgentCall], str], call: AgentCall, refused_before: int = 0
) -> Callable[[str], str]:
    """`ask` with `call`, each use after the first counted as a re-ask (`call.reask`, from the
    answers `refused_before` on a previous run), so an HTTP agent answers the same question at a
    higher temperature."""
    asked = count(refused_before)
    return lambda prompt: ask(prompt, call.model_copy(update={"reask": next(asked)}))


def ask_until_usable(
    ask: Callable[[str], str],
    prompt: Callable[[UnusableReply | None], str],
    use: Callable[[str], T],
    *,
    attempts: int,
    on_unusable: Callable[[int, UnusableReply], object] = lambda attempt, why: None,
) -> T:
    """What `use` makes of the first usable answer; the last `UnusableReply` after `attempts`.

    `prompt` is given the previous attempt's refusal (None at first), so each re-ask can say why;
    the refusal carries the answer it refused (`UnusableReply.reply`), to be kept and quoted.
    """
    refusal: UnusableReply | None = None
    for attempt in range(1, attempts + 1):
        answer = ask(prompt(refusal))
        try:
            return use(answer)
        except UnusableReply as exc:
            exc.reply = exc.reply or answer
            refusal = exc
            on_unusable(attempt, exc)
    assert refusal is not None, "attempts must be at least 1"
    raise refusal
