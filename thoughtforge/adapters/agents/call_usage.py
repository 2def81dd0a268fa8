"""What one agent call used: tokens in and out, and money where the agent said what it cost.

Each kind of agent reports usage in its own words: an OpenAI-compatible server's `usage` object
(streamed or not; some, like OpenRouter, add a `cost`), Claude Code's `usage` and
`total_cost_usd`. The readers live beside the replies they come with (`http_agent`, each
CLI's kind module) and hand what they find to `report`, which gives it to the call being
measured (`measuring`); an agent that reports nothing, or nonsense, is estimated from the
prompt's and the reply's sizes, and says so. Pricing and summing are `core.spend`'s.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Literal

from pydantic import BaseModel, Field

from thoughtforge.prompting.context_window import estimate_tokens

MAX_CALL_TOKENS = 10_000_000
"""More tokens than any model's window in one call: a report above it is nonsense."""
MAX_CALL_USD = 1_000.0
"""More than any single call costs: a reported cost above it is nonsense."""

UsageSource = Literal["reported", "estimated"]


class CallUsage(BaseModel):
    """One call's usage; `usd` None when the agent reported no cost (it is priced later)."""

    tokens_in: int = Field(ge=0)
    tokens_out: int = Field(ge=0)
    usd: float | None = Field(None, ge=0)
    source: UsageSource
    note: str = ""
    """Why the figures are estimated (nothing reported, or what was wrong with the report)."""


_meter: ContextVar[list[CallUsage] | None] = ContextVar("thoughtforge_usage_meter", default=None)


@contextmanager
def measuring() -> Iterator[list[CallUsage]]:
    """Collect what the agent call made inside this block reports (`report`)."""
    reports: list[CallUsage] = []
    token = _meter.set(reports)
    try:
        yield reports
    finally:
        _meter.reset(token)


def report(usage: CallUsage) -> None:
    """What an agent's reply said it used; nothing to do outside a measured call."""
    reports = _meter.get()
    if reports is not None:
        reports.append(usage)


def estimated(prompt: str, reply: str, note: str) -> CallUsage:
    """The tokens of a call whose agent reported none (or nonsense), from the texts' sizes."""
    return CallUsage(
        tokens_in=estimate_tokens(prompt),
        tokens_out=estimate_tokens(reply),
        source="estimated",
        note=note,
    )


def of_call(reports: list[CallUsage], prompt: str, reply: str) -> CallUsage:
    """The usage to record for a call: the last report, else an estimate that says why."""
    if not reports:
        return estimated(prompt, reply, "the agent reported no usage")
    last = reports[-1]
    if last.source == "estimated":
        return estimated(prompt, reply, last.note)
    return last


def from_openai(usage: Any) -> CallUsage:
    """An OpenAI-style `usage` object (`prompt_tokens`, `completion_tokens`, maybe `cost`)."""
    return checked(
        usage,
        tokens_in=("prompt_tokens", "input_tokens"),
        tokens_out=("completion_tokens", "output_tokens"),
        usd=_field(usage, "cost"),
    )


def summed(
    usages: list[Any], *, tokens_in: tuple[str, ...], tokens_out: tuple[str, ...], usd: Any
) -> CallUsage:
    """Several usage reports of one call (its turns, or its models) added up."""
    if not usages:
        return unusable("no usage")
    parts = [
        checked(u, tokens_in=tokens_in, tokens_out=tokens_out, usd=None, sum_in=True, sum_out=True)
        for u in usages
    ]
    broken = next((part for part in parts if part.source == "estimated"), None)
    if broken is not None:
        return broken
    try:
        cost = None if usd is None else _money(usd)
    except ValueError as exc:
        return _suspicious(exc)
    return CallUsage(
        tokens_in=min(sum(p.tokens_in for p in parts), MAX_CALL_TOKENS),
        tokens_out=min(sum(p.tokens_out for p in parts), MAX_CALL_TOKENS),
        usd=cost,
        source="reported",
        note="; ".join(p.note for p in parts if p.note),
    )


def _field(usage: Any, name: str) -> Any:
    return usage.get(name) if isinstance(usage, dict) else None


def checked(
    usage: Any,
    *,
    tokens_in: tuple[str, ...],
    tokens_out: tuple[str, ...],
    usd: Any,
    sum_in: bool = False,
    sum_out: bool = False,
) -> CallUsage:
    """The report's figures, or an estimate marker naming what was wrong with them."""
    if not isinstance(usage, dict):
        return unusable("no usage object")
    found_in = [usage[key] for key in tokens_in if key in usage]
    found_out = [usage[key] for key in tokens_out if key in usage]
    if not found_in or not found_out:
        return unusable(f"usage without token counts ({', '.join(sorted(usage))[:80]})")
    try:
        count_in = sum(_count(v) for v in found_in) if sum_in else _count(found_in[0])
        count_out = sum(_count(v) for v in found_out) if sum_out else _count(found_out[0])
        cost = None if usd is None else _money(usd)
    except ValueError as exc:
        return _suspicious(exc)
    return CallUsage(tokens_in=count_in, tokens_out=count_out, usd=cost, source="reported")


def _count(value: Any) -> int:
    return int(_figure(value, "a token count", MAX_CALL_TOKENS, ""))


def _money(value: Any) -> float:
    return _figure(value, "a cost", MAX_CALL_USD, " USD")


def _figure(value: Any, what: str, most: float, unit: str) -> float:
    """A reported number that can be true: not negative, not past `most`, not NaN."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        raise ValueError(f"{what} that is not a number ({value!r})")
    if value < 0 or value > most:
        raise ValueError(f"an impossible {what.removeprefix('a ')} ({value!r}{unit})")
    return float(value)


def completion_tokens(usage: Any) -> int | None:
    """An OpenAI-style usage's `completion_tokens` if it can be true, else None: a server's
    absurd figure never fails the call it came with."""
    try:
        return _count(_field(usage, "completion_tokens"))
    except ValueError:
        return None


def _suspicious(exc: ValueError) -> CallUsage:
    """A report with an impossible figure: the call is still counted, estimated, and marked."""
    return unusable(f"suspicious figures: {exc}")


def unusable(why: str) -> CallUsage:
    return CallUsage(tokens_in=0, tokens_out=0, source="estimated", note=f"reported {why}")
