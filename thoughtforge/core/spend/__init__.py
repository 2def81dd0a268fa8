"""What a project's agent calls cost, and the budget that stops them: `ledger` (`usage.json`, the
one record of spend), `budget` (which budget applies, and whether the next call fits in it),
`summary` (spend as the person meets it: status, the page, the board, setting a budget).

What a call reports it used, and the check and record around each call, are the agent adapters'
(`adapters.agents.call_usage`, `adapters.agents.call_budget`).
"""

from thoughtforge.core.spend.budget import (
    budget_of,
    describe,
    lowered_below_spent,
    next_call_cost,
    over_budget,
    short,
    usd,
)
from thoughtforge.core.spend.ledger import (
    CALL_EVENT,
    USAGE_FILE,
    Budget,
    Spend,
    UsageLedger,
    add_call,
    iteration_spend,
    price,
    read_usage,
    rebuild_from_log,
    set_budget,
)
from thoughtforge.core.spend.summary import (
    SpendSummary,
    change_budget,
    rebuild,
    spend_markdown,
    spend_of,
)

__all__ = [
    "CALL_EVENT",
    "USAGE_FILE",
    "Budget",
    "Spend",
    "SpendSummary",
    "UsageLedger",
    "add_call",
    "budget_of",
    "change_budget",
    "describe",
    "iteration_spend",
    "lowered_below_spent",
    "next_call_cost",
    "over_budget",
    "price",
    "read_usage",
    "rebuild",
    "rebuild_from_log",
    "set_budget",
    "short",
    "spend_markdown",
    "spend_of",
    "usd",
]
