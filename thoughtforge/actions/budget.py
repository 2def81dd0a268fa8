"""A project's own budget, set from a door at any time (`BudgetChange`), or raised as part of a
decision on its `budget_exhausted` halt (the token limit then stays as it was): both as
`thoughtforge budget ID --usd N` sets it (`core.spend.change_budget`, which the CLI's `budget`,
through `spend_and_budget`, and a new project's budget call too)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt

from thoughtforge.config import Config
from thoughtforge.core.project import Project
from thoughtforge.core.spend.summary import SpendSummary, change_budget, rebuild, spend_of
from thoughtforge.errors import ActionRefused
from thoughtforge.models import MAX_TOKENS, MAX_USD, HaltReason


class BudgetChange(BaseModel):
    """A new budget in dollars and/or tokens, or `clear` for the config's again."""

    model_config = ConfigDict(extra="forbid")

    usd: StrictFloat | StrictInt | None = Field(None, gt=0, le=MAX_USD)
    tokens: StrictInt | None = Field(None, gt=0, le=MAX_TOKENS)
    clear: StrictBool = False


def set_budget(config: Config, project: Project, change: BudgetChange) -> str:
    """The budget set; what it is now, and a warning when it is already used up."""
    usd = float(change.usd) if change.usd is not None else None
    summary, warning = change_budget(config, project, usd, change.tokens, clear=change.clear)
    note = f"Budget now: {summary.line}."
    return f"{note} {warning}" if warning else note


def spend_and_budget(
    config: Config,
    project: Project,
    usd: float | None = None,
    tokens: int | None = None,
    *,
    clear: bool = False,
    rebuilt: bool = False,
) -> tuple[SpendSummary, str | None]:
    """What the project spent against its budget (`thoughtforge budget`, MCP's `spend`): after
    usage.json is made again from the project log (`rebuilt`), or after its own budget is set
    (`usd`, `tokens`) or dropped (`clear`), with a warning when the new one is already used up,
    or as it stands."""
    if rebuilt:
        return rebuild(config, project), None
    if usd is not None or tokens is not None or clear:
        return change_budget(config, project, usd, tokens, clear=clear)
    return spend_of(config, project), None


def raise_on_halt(config: Config, project: Project, usd: float, *, terminating: bool) -> None:
    """The new budget in dollars; nothing when the decision terminates the project."""
    if project.status().halt_reason is not HaltReason.BUDGET_EXHAUSTED:
        raise ActionRefused("the budget is raised on a budget_exhausted halt only")
    if terminating:
        return
    kept_tokens = spend_of(config, project).budget.max_tokens
    change_budget(config, project, usd, kept_tokens)
