"""A project's spend and budget as the person meets them: set the budget (the CLI's `budget`, the
workbench), and read what was spent, per phase and per polish iteration (status, the workbench,
the board, notifications, the run's artifact). The CLI and the page call these same functions.
"""

from __future__ import annotations

from pydantic import BaseModel

from thoughtforge.config import Config
from thoughtforge.core.project import Project
from thoughtforge.core.spend.budget import budget_of, describe, lowered_below_spent, short
from thoughtforge.core.spend.ledger import Budget, Spend, read_usage, rebuild_from_log, set_budget
from thoughtforge.errors import StateFileError, ThoughtForgeError
from thoughtforge.models import MAX_TOKENS, MAX_USD


class SpendSummary(BaseModel):
    """What a project spent and may spend; `error` when `usage.json` cannot be read."""

    total: Spend = Spend()
    budget: Budget = Budget()
    own_budget: bool = False
    """The project's own budget (`thoughtforge budget`), not the config's."""
    phases: dict[str, Spend] = {}
    iterations: dict[int, Spend] = {}
    error: str | None = None

    @property
    def line(self) -> str:
        """One line: `$1.23 of $5.00 · 45,678 tokens (12 calls)`."""
        if self.error is not None:
            return f"spend unknown: {self.error}"
        return describe(self.total, self.budget)

    @property
    def short(self) -> str:
        """For a header (`budget.short`)."""
        if self.error is not None:
            return "spend unknown"
        return short(self.total, self.budget)

    def breakdown(self) -> list[tuple[str, str]]:
        """(where, what it cost) per phase, then per polish iteration."""
        rows = [(phase, describe(spend)) for phase, spend in self.phases.items()]
        rows += [
            (f"iteration {n}", describe(spend)) for n, spend in sorted(self.iterations.items())
        ]
        return rows


def spend_markdown(summary: SpendSummary, project_id: str) -> str:
    """The breakdown as a Markdown table: the run's artifact in the Prefect UI."""
    if summary.error is not None:
        return f"## Spend of {project_id}\n\n{summary.line}\n"
    rows = "".join(f"| {where} | {what} |\n" for where, what in summary.breakdown())
    return (
        f"## Spend of {project_id}\n\n**Total:** {summary.line}\n\n"
        f"| where | spent |\n| --- | --- |\n{rows}"
    )


def spend_of(config: Config, project: Project) -> SpendSummary:
    """The project's spend and the budget that applies; a corrupt ledger is named, not guessed."""
    try:
        ledger = read_usage(project.dir)
    except StateFileError as exc:
        hint = f"rebuild it from the log: thoughtforge budget {project.id} --rebuild"
        return SpendSummary(error=f"{exc} ({hint})")
    return SpendSummary(
        total=ledger.total,
        budget=budget_of(config, ledger),
        own_budget=ledger.budget is not None,
        phases=ledger.phases,
        iterations=ledger.iterations,
    )


def change_budget(
    config: Config,
    project: Project,
    max_usd: float | None,
    max_tokens: int | None,
    *,
    clear: bool = False,
) -> tuple[SpendSummary, str | None]:
    """Give `project` its own budget (or, with `clear`, the config's again); the summary after,
    and a warning when the new budget is already used up. A halted project resumes with it."""
    if clear:
        if max_usd is not None or max_tokens is not None:
            raise ThoughtForgeError("give a new budget or clear the project's own, not both")
        set_budget(project.dir, None)
        return spend_of(config, project), None
    if max_usd is None and max_tokens is None:
        raise ThoughtForgeError("give a budget: --usd AMOUNT and/or --tokens COUNT")
    for name, value in (("--usd", max_usd), ("--tokens", max_tokens)):
        if value is not None and not value > 0:
            raise ThoughtForgeError(
                f"a budget must be more than 0 ({name} {value}); to stop the project, terminate "
                "it; to use the config's budget again, clear the project's own (--clear)"
            )
    if max_usd is not None and not max_usd <= MAX_USD:
        raise ThoughtForgeError(f"--usd {max_usd:g} is not a plausible budget (over ${MAX_USD:,})")
    if max_tokens is not None and max_tokens > MAX_TOKENS:
        raise ThoughtForgeError(
            f"--tokens {max_tokens} is not a plausible budget (over {MAX_TOKENS:,})"
        )
    budget = Budget(max_usd=max_usd, max_tokens=max_tokens)
    try:
        ledger = read_usage(project.dir)
    except StateFileError as exc:
        raise ThoughtForgeError(
            f"{exc}: rebuild it first (thoughtforge budget {project.id} --rebuild)"
        ) from None
    set_budget(project.dir, budget)
    return spend_of(config, project), lowered_below_spent(budget, ledger.total)


def rebuild(config: Config, project: Project) -> SpendSummary:
    """The ledger made again from the project log (a corrupt one kept as `usage.json.corrupt`)."""
    rebuild_from_log(project.dir)
    return spend_of(config, project)
