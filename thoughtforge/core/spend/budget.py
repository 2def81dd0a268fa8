"""A project's budget: which one applies, whether the next agent call fits in what is left, and
spend as a person reads it.

The check is made before every call with the worst the call could cost: its prompt's estimated
tokens plus all of the answer's room (`max_tokens`), priced at the agent's prices (or, for an
agent that reports its costs but has no prices in the config, at what the project has paid per
token so far). A call that could go past the budget is not made, so a project never overshoots by
more than what one call's estimate missed. Where no price is known at all, the money limit is
checked against what was spent (at most one call over) and the message says so.
"""

from __future__ import annotations

from thoughtforge.config import Config
from thoughtforge.core.spend.ledger import Budget, Spend, UsageLedger, price

DEFAULT_ANSWER_TOKENS = 4096
"""The answer's room assumed for an agent whose config gives no `max_tokens` (a CLI agent)."""


def budget_of(config: Config, ledger: UsageLedger) -> Budget:
    """The project's own budget, else the config's."""
    if ledger.budget is not None:
        return ledger.budget
    return Budget(max_usd=config.budget.max_usd, max_tokens=config.budget.max_tokens)


def next_call_cost(
    config: Config, agent: str, prompt_tokens: int, spent: Spend
) -> tuple[int, float | None]:
    """The most the next call to `agent` could use: tokens, and dollars where a price is known."""
    spec = config.agent(agent)
    reply_room = spec.max_tokens or DEFAULT_ANSWER_TOKENS
    tokens = prompt_tokens + reply_room
    usd = price(spec.price_per_million_tokens, prompt_tokens, reply_room)
    if usd is None and spent.usd > 0 and spent.tokens:
        usd = spent.usd / spent.tokens * tokens  # what this project has paid per token so far
    return tokens, usd


def over_budget(
    budget: Budget, spent: Spend, next_tokens: int = 0, next_usd: float | None = 0.0
) -> str | None:
    """Why a call costing up to `next_tokens` / `next_usd` may not be made; None if it fits."""
    if budget.max_tokens is not None and spent.tokens + next_tokens > budget.max_tokens:
        tokens_left = max(budget.max_tokens - spent.tokens, 0)
        return (
            f"Budget exhausted: spent {spent.tokens:,} of {budget.max_tokens:,} tokens; the next "
            f"call could take up to {next_tokens:,} and only {tokens_left:,} are left."
        )
    if budget.max_usd is None:
        return None
    if next_usd is None:
        if spent.usd < budget.max_usd:
            return None
        return (
            f"Budget exhausted: spent {usd(spent.usd)} of {usd(budget.max_usd)} (no price is known "
            "for the next call, so it was checked against what is spent)."
        )
    if spent.usd + next_usd > budget.max_usd:
        left = max(budget.max_usd - spent.usd, 0.0)
        return (
            f"Budget exhausted: spent {usd(spent.usd)} of {usd(budget.max_usd)}; the next call "
            f"could cost up to {usd(next_usd)} and only {usd(left)} is left."
        )
    return None


def describe(spent: Spend, budget: Budget | None = None) -> str:
    """`$1.23 of $5.00 · 45,678 tokens (12 calls)`, saying what is estimated or unpriced; when no
    call had a price, the tokens alone ("$0.00" would read as free), and a dollar budget says it
    cannot bind."""
    dollars = budget.max_usd if budget is not None else None
    tokens = f"{spent.tokens:,} tokens"
    if budget is not None and budget.max_tokens is not None:
        tokens += f" of {budget.max_tokens:,}"
    notes = [f"{spent.calls} call{'s' if spent.calls != 1 else ''}"]
    if spent.estimated_calls:
        notes.append(f"{spent.estimated_calls} estimated")
    if spent.unpriced_calls:
        notes.append(f"{spent.unpriced_calls} without a price")
    if spent.usd == 0 and spent.unpriced_calls:
        bind = (
            f"; the {usd(dollars)} budget cannot bind: the agent has no price"
            if dollars is not None
            else ""
        )
        return f"{tokens} ({', '.join(notes)}{bind})"
    money = usd(spent.usd) + (f" of {usd(dollars)}" if dollars is not None else "")
    return f"{money} · {tokens} ({', '.join(notes)})"


def short(spent: Spend, budget: Budget | None = None) -> str:
    """For a card or a header, in one unit: `$1.23 / $5.00`; the tokens when the calls had no
    price (`7,963 tokens / 20,000`), and then a dollar budget says it cannot bind."""
    limits = budget or Budget()
    if spent.usd == 0 and spent.unpriced_calls:
        used = f"{spent.tokens:,} tokens"
        used += f" / {limits.max_tokens:,}" if limits.max_tokens else ""
        if limits.max_usd is not None:
            used += f" ({usd(limits.max_usd)} budget cannot bind: the agent has no price)"
        return used
    return usd(spent.usd) + (f" / {usd(limits.max_usd)}" if limits.max_usd is not None else "")


def usd(amount: float) -> str:
    """Dollars as a person reads them: cents, or four decimals below a cent."""
    if 0 < amount < 0.01:
        return f"${amount:.4f}"
    return f"${amount:,.2f}"


def lowered_below_spent(budget: Budget, spent: Spend) -> str | None:
    """A warning when a new budget is already used up: the next call halts the project."""
    why = over_budget(budget, spent)
    if why is None:
        return None
    return (
        f"{why.removeprefix('Budget exhausted: ')} The project's next agent call will halt it "
        "(budget_exhausted) until the budget is raised."
    )
