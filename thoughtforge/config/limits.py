"""The limits: what a project may spend, how many runs and agent calls go at once, how long a run
keeps its process for the person, Phase 3's completeness floor, and the size of a file and of a
brain dump."""

from __future__ import annotations

from pydantic import Field

from thoughtforge.config.section import Section
from thoughtforge.models import TokenBudget, Usd


class BudgetConfig(Section):
    """What a project may spend on agent calls, by default (`thoughtforge budget ID` sets one
    project's own). Unset: no limit."""

    max_usd: Usd | None = None
    max_tokens: TokenBudget | None = None


class ConcurrencyConfig(Section):
    max_parallel_runs: int = Field(3, ge=1)
    max_parallel_agent_calls: int = Field(2, ge=1)


class HumanConfig(Section):
    """How a deployment's run waits for the person: it keeps its process (an answer reaches the
    agent within a second) for `hold_seconds`, then suspends (nothing held; the next answer
    takes a few seconds to re-enter). 0 suspends at once."""

    hold_seconds: float = Field(300, ge=0, le=86_400)


class Phase3CompletenessConfig(Section):
    plan_min_chars: int = Field(500, ge=0)
    code_min_source_files: int = Field(1, ge=0)


class ResourcesConfig(Section):
    max_file_bytes: int = Field(10 * 1024 * 1024, gt=0)


class BrainDumpConfig(Section):
    min_chars: int = Field(100, ge=0)
    max_chars: int = Field(200_000, gt=0)
