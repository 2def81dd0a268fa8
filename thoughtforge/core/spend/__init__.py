"""What a project's agent calls cost, and the budget that stops them: `ledger` (`usage.json`, the
one record of spend), `budget` (which budget applies, and whether the next call fits in it),
`summary` (spend as the person meets it: status, the page, the board, setting a budget).

What a call reports it used, and the check and record around each call, are the agent adapters'
(`adapters.agents.call_usage`, `adapters.agents.call_budget`).

Import from the modules: this package re-exports nothing.
"""
