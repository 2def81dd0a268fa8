"""`usage.json`: what a project's agent calls used and cost, and the project's own budget.

The one record of spend: every call (a retry, a re-ask and a refused answer too: each was paid
for) is added to the project's total, its phase's and, in the polish loop, its iteration's, under
the state files' lock, and written atomically. A missing file is a project that has spent nothing;
a corrupt one raises `StateFileError` (never guessed, never overwritten), as every state file
does. Each call is also a line of the project log (`agent_usage`), which is how a lost ledger could
be rebuilt.
"""

from __future__ import annotations

import math
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from thoughtforge.config.agents import TokenPrices
from thoughtforge.core.atomic_write import write_text_atomic
from thoughtforge.core.project_log import log_event, read_events
from thoughtforge.core.state import read_state_file, state_lock, utc_now
from thoughtforge.errors import StateFileError
from thoughtforge.models import TokenBudget, Usd

USAGE_FILE = "usage.json"
MAX_LOGGED_AMOUNT = 10**15
"""More tokens or dollars than one logged call could hold: a larger figure is a damaged line."""
CALL_EVENT = "agent_usage"
"""The project log's line for one call (`adapters.agents.call_budget`)."""
BUDGET_EVENT = "budget_set"


class _LedgerModel(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class Spend(_LedgerModel):
    """A sum of calls. `usd` counts only the calls whose cost is known; `unpriced_calls` are the
    others (the agent reported no cost and its config gives no prices)."""

    calls: int = Field(0, ge=0)
    tokens_in: int = Field(0, ge=0)
    tokens_out: int = Field(0, ge=0)
    usd: float = Field(0.0, ge=0)
    estimated_calls: int = Field(0, ge=0)
    """Calls whose tokens were estimated from the text sizes (the agent reported none)."""
    unpriced_calls: int = Field(0, ge=0)

    @property
    def tokens(self) -> int:
        return self.tokens_in + self.tokens_out

    def plus(self, other: Spend) -> Spend:
        return Spend(
            **{name: getattr(self, name) + getattr(other, name) for name in Spend.model_fields}
        )


class Budget(_LedgerModel):
    """A limit in money, in tokens, or both; neither set: no limit."""

    max_usd: Usd | None = None
    max_tokens: TokenBudget | None = None

    @property
    def limited(self) -> bool:
        return self.max_usd is not None or self.max_tokens is not None


class UsageLedger(_LedgerModel):
    total: Spend = Spend()
    phases: dict[str, Spend] = {}
    iterations: dict[int, Spend] = {}
    """Polish iteration → what its calls used."""
    budget: Budget | None = None
    """The project's own budget (`thoughtforge budget`); None: the config's `budget` applies."""
    updated_at: datetime = Field(default_factory=utc_now)


def read_usage(project_dir: Path) -> UsageLedger:
    """The ledger; an empty one when the project has made no call yet; `StateFileError` when the
    file cannot be trusted."""
    if not (project_dir / USAGE_FILE).exists():
        return UsageLedger()
    return read_state_file(project_dir, USAGE_FILE, UsageLedger)


def add_call(project_dir: Path, phase: str, iteration: int | None, spend: Spend) -> UsageLedger:
    """Add one call's spend to the total, its phase and (given) its polish iteration."""
    with state_lock(project_dir):
        ledger = read_usage(project_dir)
        phases = dict(ledger.phases)
        phases[phase] = phases.get(phase, Spend()).plus(spend)
        iterations = dict(ledger.iterations)
        if iteration is not None:
            iterations[iteration] = iterations.get(iteration, Spend()).plus(spend)
        updated = ledger.model_copy(
            update={
                "total": ledger.total.plus(spend),
                "phases": phases,
                "iterations": iterations,
                "updated_at": utc_now(),
            }
        )
        _write(project_dir, updated)
    return updated


def set_budget(project_dir: Path, budget: Budget | None) -> UsageLedger:
    """Give the project its own budget (None: back to the config's); logged, so a rebuilt
    ledger has it too."""
    with state_lock(project_dir):
        ledger = read_usage(project_dir).model_copy(
            update={"budget": budget, "updated_at": utc_now()}
        )
        _write(project_dir, ledger)
    log_event(project_dir, BUDGET_EVENT, budget=None if budget is None else budget.model_dump())
    return ledger


def rebuild_from_log(project_dir: Path) -> UsageLedger:
    """A ledger made again from the project log's `agent_usage` and `budget_set` lines, written
    over an unreadable `usage.json` (whose bytes are kept beside it as `usage.json.corrupt`)."""
    ledger = UsageLedger()
    for event in read_events(project_dir):
        if event.get("event") == BUDGET_EVENT:
            raw = event.get("budget")
            try:
                ledger.budget = None if raw is None else Budget.model_validate(raw)
            except ValidationError:
                log_event(project_dir, "damaged_budget_line_skipped", level="warning")
        elif event.get("event") == CALL_EVENT:
            spend = _spend_of(event)
            phase = str(event.get("phase", "unknown"))
            iteration = event.get("iteration") if phase == "polishing" else None
            ledger.phases[phase] = ledger.phases.get(phase, Spend()).plus(spend)
            if isinstance(iteration, int):
                ledger.iterations[iteration] = ledger.iterations.get(iteration, Spend()).plus(spend)
            ledger.total = ledger.total.plus(spend)
    with state_lock(project_dir):
        path = project_dir / USAGE_FILE
        if path.exists():
            try:
                read_usage(project_dir)
            except StateFileError:
                path.replace(path.with_name(USAGE_FILE + ".corrupt"))
        _write(project_dir, ledger)
    return ledger


def iteration_spend(project_dir: Path, iteration: int) -> Spend | None:
    """What polish iteration `iteration`'s calls used; None when the ledger cannot be read (the
    next budget check names the file)."""
    try:
        return read_usage(project_dir).iterations.get(iteration, Spend())
    except StateFileError:
        return None


def price(prices: TokenPrices | None, tokens_in: int, tokens_out: int) -> float | None:
    """What the tokens cost at `prices` (per million), or None without prices."""
    if prices is None:
        return None
    return (tokens_in * prices.input + tokens_out * prices.output) / 1_000_000


def _spend_of(event: dict[str, Any]) -> Spend:
    """One logged call, counted whatever its numbers say: a count that is no finite number of
    at least 0 (a damaged line's `"12x"` or `1e400`) is read as 0, and the call as unpriced."""
    usd = _amount(event.get("usd"))
    return Spend(
        calls=1,
        tokens_in=int(_amount(event.get("tokens_in")) or 0),
        tokens_out=int(_amount(event.get("tokens_out")) or 0),
        usd=usd or 0.0,
        estimated_calls=int(event.get("tokens") == "estimated"),
        unpriced_calls=int(usd is None),
    )


def _amount(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value) if abs(value) < MAX_LOGGED_AMOUNT else math.inf
    return number if math.isfinite(number) and number >= 0 else None


def _write(project_dir: Path, ledger: UsageLedger) -> None:
    write_text_atomic(project_dir / USAGE_FILE, ledger.model_dump_json(indent=2) + "\n")
