"""The small sections: a folder, a few limits or counts each, for the projects, the polish
loop, concurrency, the person's waits, Phase 3's completeness check, resources and brain dumps."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from thoughtforge.config.section import Section
from thoughtforge.models import TokenBudget, Usd


class ProjectsConfig(Section):
    directory: Path = Path("projects")


class PolishConfig(Section):
    critical_max: int = Field(0, ge=0)
    medium_max: int = Field(3, ge=0)
    minor_max: int = Field(5, ge=0)
    max_iterations: int = Field(50, ge=1)
    stagnation_limit: int = Field(3, ge=2)
    retry_malformed_output: int = Field(2, ge=0)
    reviewer_agent: str | None = None
    min_issues_resolved_per_usd: float | None = Field(None, gt=0)
    """The value guard (off when unset): once the last `value_window` iterations resolved fewer
    severity-weighted issues per dollar than this, another iteration is not worth its price."""
    value_window: int = Field(3, ge=1, le=50)


class BudgetConfig(Section):
    """What a project may spend on agent calls, by default (`thoughtforge budget ID` sets one
    project's own). Unset: no limit."""

    max_usd: Usd | None = None
    max_tokens: TokenBudget | None = None


class ConcurrencyConfig(Section):
    max_parallel_runs: int = Field(3, ge=1)
    max_parallel_agent_calls: int = Field(2, ge=1)


class DirectoryConfig(Section):
    directory: Path | None = None


class PromptsConfig(Section):
    """The folder whose `*.md` files override the built-in prompts; the workbench's prompt
    editor saves there (and creates it on the first save)."""

    directory: Path | None = Path("prompts")


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
