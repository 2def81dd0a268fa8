"""Raising a project's budget as part of a decision on its `budget_exhausted` halt: set before
the decision, as `thoughtforge budget ID --usd N` sets it (`core.spend.change_budget`,
which the CLI's `budget` and a new project's budget call too); the token limit stays as it was."""

from __future__ import annotations

from thoughtforge.config import Config
from thoughtforge.core import Project
from thoughtforge.core.spend import change_budget, spend_of
from thoughtforge.errors import ActionRefused
from thoughtforge.models import HaltReason


def raise_on_halt(config: Config, project: Project, usd: float, *, terminating: bool) -> None:
    """The new budget in dollars; nothing when the decision terminates the project."""
    if project.status().halt_reason is not HaltReason.BUDGET_EXHAUSTED:
        raise ActionRefused("the budget is raised on a budget_exhausted halt only")
    if terminating:
        return
    kept_tokens = spend_of(config, project).budget.max_tokens
    change_budget(config, project, usd, kept_tokens)
