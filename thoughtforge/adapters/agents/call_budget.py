"""Where agent calls meet the project's ledger: the budget check before each call, and the record
of what it used after it (`invoke_agent` calls both, for every attempt).

A call made outside a project (the doctor's probe, in a temporary folder) is neither checked nor
recorded. The record is best-effort on the ledger (a corrupt `usage.json` is never overwritten:
the call is logged, and the next budget check halts the run naming the file), never on the log.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from thoughtforge.adapters.agents.call_notes import in_a_project, tell_chat
from thoughtforge.adapters.agents.call_usage import CallUsage
from thoughtforge.config import Config
from thoughtforge.core.project_log import log_event
from thoughtforge.core.spend.budget import budget_of, describe, next_call_cost, over_budget
from thoughtforge.core.spend.ledger import (
    CALL_EVENT,
    Spend,
    UsageLedger,
    add_call,
    price,
    read_usage,
)
from thoughtforge.errors import BudgetExhausted, PhaseHalt, StateFileError
from thoughtforge.models import HaltReason, Phase

WARN_AT = 0.8
"""The share of the budget whose passing the chat is told of."""
_RAISE_HINT = " To go on: thoughtforge budget {project} --usd N, then resume."


def check_budget(config: Config, agent: str, project_dir: Path, prompt_tokens: int) -> None:
    """`BudgetExhausted` when the next call could take the project past its budget."""
    if not in_a_project(project_dir):
        return
    try:
        ledger = read_usage(project_dir)
    except StateFileError as exc:
        raise PhaseHalt(
            HaltReason.FILE_SYSTEM_ERROR,
            f"{exc}. The spend so far is unknown, so no agent is called: rebuild it from the "
            f"project log (thoughtforge budget {project_dir.name} --rebuild), then resume.",
        ) from None
    budget = budget_of(config, ledger)
    if not budget.limited:
        return
    tokens, usd = next_call_cost(config, agent, prompt_tokens, ledger.total)
    why = over_budget(budget, ledger.total, tokens, usd)
    if why is not None:
        log_event(project_dir, "budget_exhausted", level="warning", agent=agent, why=why)
        raise BudgetExhausted(why + _RAISE_HINT.format(project=project_dir.name))


def record_call(
    config: Config,
    agent: str,
    project_dir: Path,
    phase: str,
    iteration: int | None,
    usage: CallUsage,
) -> None:
    """Log the call's usage and add it to the ledger (priced at the agent's prices when the
    agent reported no cost)."""
    if not in_a_project(project_dir):
        return
    prices = config.agent(agent).price_per_million_tokens
    cost = usage.usd if usage.usd is not None else price(prices, usage.tokens_in, usage.tokens_out)
    money = "reported" if usage.usd is not None else ("priced" if cost is not None else "unknown")
    fields: dict[str, Any] = {
        "agent": agent,
        "phase": phase,
        "tokens_in": usage.tokens_in,
        "tokens_out": usage.tokens_out,
        "tokens": usage.source,
        "usd": None if cost is None else round(cost, 6),
        "money": money,
    }
    if usage.note:
        fields["note"] = usage.note
    if cost is None:
        fields["why_no_money"] = (
            f"no cost reported and no agents.available.{agent}.price_per_million_tokens"
        )
    if iteration is not None:
        fields["iteration"] = iteration
    log_event(project_dir, CALL_EVENT, **fields)
    spend = Spend(
        calls=1,
        tokens_in=usage.tokens_in,
        tokens_out=usage.tokens_out,
        usd=cost or 0.0,
        estimated_calls=int(usage.source == "estimated"),
        unpriced_calls=int(cost is None),
    )
    counted_iteration = iteration if phase == Phase.POLISHING.value else None
    try:
        ledger = add_call(project_dir, phase, counted_iteration, spend)
    except (StateFileError, OSError) as exc:
        log_event(project_dir, "usage_not_recorded", level="warning", error=str(exc))
        return
    _warn_near_the_end(config, project_dir, phase, spend, ledger)


def _warn_near_the_end(
    config: Config, project_dir: Path, phase: str, call: Spend, ledger: UsageLedger
) -> None:
    """The call that takes the project past `WARN_AT` of its budget is told in the chat, once."""
    budget = budget_of(config, ledger)
    total = ledger.total
    crossed = []
    if budget.max_usd is not None:
        crossed.append(_crosses(total.usd - call.usd, total.usd, budget.max_usd))
    if budget.max_tokens is not None:
        crossed.append(_crosses(total.tokens - call.tokens, total.tokens, budget.max_tokens))
    if not any(crossed):
        return
    text = (
        f"{WARN_AT:.0%} of the budget is spent ({describe(ledger.total, budget)}). A call that "
        f"could pass it will not be made: raise it with thoughtforge budget {project_dir.name} "
        "--usd N (or in the workbench) to go on without a stop."
    )
    tell_chat(project_dir, phase, text)


def _crosses(before: float, after: float, limit: float) -> bool:
    return before < WARN_AT * limit <= after
