"""Phase 4's polish loop: the counts that converge it, its iteration cap, the retries of a
malformed answer, the stagnation and value guards' settings, and the reviewer agent."""

from __future__ import annotations

from pydantic import Field

from thoughtforge.config.section import Section


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
