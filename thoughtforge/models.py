"""Domain vocabulary shared by state files, guards, flows and adapters."""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, GetCoreSchemaHandler, field_validator
from pydantic_core import core_schema


class Phase(StrEnum):
    BRAIN_DUMP = "brain_dump"
    DISTILLING = "distilling"
    HUMAN_REVIEW = "human_review"
    SPEC_BUILDING = "spec_building"
    BUILDING = "building"
    POLISHING = "polishing"
    DONE = "done"
    HALTED = "halted"


MAX_USD = 1_000_000
"""The largest budget in dollars any surface takes (config, CLI, page, MCP): more is a typo."""
MAX_TOKENS = 10**12
"""The largest token budget any surface takes."""
Usd = Annotated[float, Field(gt=0, le=MAX_USD, allow_inf_nan=False)]
"""A budget in dollars: a finite amount over 0, at most `MAX_USD`."""
TokenBudget = Annotated[int, Field(gt=0, le=MAX_TOKENS)]


AUTONOMOUS_PHASES = frozenset({Phase.DISTILLING, Phase.BUILDING, Phase.POLISHING})
PHASE_ONE = frozenset({Phase.BRAIN_DUMP, Phase.DISTILLING, Phase.HUMAN_REVIEW})
CONVERSATION_PHASES = PHASE_ONE | {Phase.SPEC_BUILDING}
"""Phases 1–2: the person and the AI talk."""


class HaltReason(StrEnum):
    SERVER_RESTART = "server_restart"
    HUMAN_TERMINATED = "human_terminated"
    AGENT_FAILURE = "agent_failure"
    ANSWER_UNUSABLE = "answer_unusable"
    FILE_SYSTEM_ERROR = "file_system_error"
    PHASE3_OUTPUT_MISSING = "phase3_output_missing"
    PHASE3_OUTPUT_INCOMPLETE = "phase3_output_incomplete"
    PLAN_INCOMPLETE = "plan_incomplete"
    STUCK = "stuck"
    SPEC_INCOMPLETE = "spec_incomplete"
    BUILD_INCOMPLETE = "build_incomplete"
    PLAN_MODE_VIOLATION = "plan_mode_violation"
    TEST_RUNNER_FAILED = "test_runner_failed"
    REVIEW_MALFORMED = "review_malformed"
    FIX_OUTPUT_INVALID = "fix_output_invalid"
    GUARD_FIX_REGRESSION = "guard_fix_regression"
    GUARD_HALLUCINATION = "guard_hallucination"
    GUARD_FABRICATION = "guard_fabrication"
    GUARD_MAX_ITERATIONS = "guard_max_iterations"
    GUARD_FIX_UNCHANGED = "guard_fix_unchanged"
    GUARD_FIX_CIRCULAR = "guard_fix_circular"
    GUARD_ISSUES_PERSIST = "guard_issues_persist"
    GUARD_LOW_VALUE = "guard_low_value"
    BUDGET_EXHAUSTED = "budget_exhausted"
    CRITERION_WITHOUT_EVIDENCE = "criterion_without_evidence"


class DeliverableType(str):
    """A deliverable type by name: the name of its plugin's folder (built in under
    `thoughtforge/plugins/`, or in `plugins.directory`). Which names exist is what plugin loading
    finds, not this vocabulary: a state file keeps the name, so it loads whatever plugins are
    installed, and the phase that needs a missing plugin says so. One object per name, so `is`
    compares types as it did when this was an enum."""

    PLAN: ClassVar[DeliverableType]
    CODE: ClassVar[DeliverableType]
    NAME: ClassVar[re.Pattern[str]] = re.compile(r"[a-z][a-z0-9_]{0,39}")
    _names: ClassVar[dict[str, DeliverableType]] = {}

    def __new__(cls, name: str) -> DeliverableType:
        known = cls._names.get(name)
        if known is not None:
            return known
        if not isinstance(name, str) or not cls.NAME.fullmatch(name):
            raise ValueError(
                f"{name!r} is not a deliverable type name (lower-case letters, digits and _, "
                "starting with a letter)"
            )
        return cls._names.setdefault(name, super().__new__(cls, name))

    @property
    def value(self) -> str:
        return str(self)

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(
            cls, core_schema.str_schema(), serialization=core_schema.to_string_ser_schema()
        )


DeliverableType.PLAN = DeliverableType("plan")
DeliverableType.CODE = DeliverableType("code")
DEFAULT_DELIVERABLE_TYPE = DeliverableType.PLAN
"""What a project is when nothing says otherwise (Phase 1 could not tell, an old state file)."""


class Severity(StrEnum):
    CRITICAL = "critical"
    MEDIUM = "medium"
    MINOR = "minor"


class Issue(BaseModel):
    """One finding of a reviewer."""

    model_config = ConfigDict(extra="ignore")

    severity: Severity
    description: str = Field(min_length=1)
    location: str = ""
    recommendation: str = ""
    finding: str = Field("", max_length=200)
    """The id of an open finding the reviewer was shown ("F3") that this issue reports again."""

    @field_validator("severity", mode="before")
    @classmethod
    def _accept_aliases(cls, value: object) -> object:
        """Reviewers write "High" or "blocking" as often as "critical"; only the meaning counts."""
        if not isinstance(value, str):
            return value
        name = value.strip().lower()
        alias = {"blocking": "critical", "high": "critical", "low": "minor", "suggestion": "minor"}
        try:
            return Severity(alias.get(name, name))
        except ValueError:
            return value  # left as written, so the validation error quotes the reviewer


class Counts(BaseModel):
    critical: int = Field(0, ge=0)
    medium: int = Field(0, ge=0)
    minor: int = Field(0, ge=0)

    @property
    def total(self) -> int:
        return self.critical + self.medium + self.minor

    @classmethod
    def of(cls, issues: list[Issue]) -> Counts:
        """Counts are always derived from the issues, never taken from an agent's summary."""
        return cls(**{s.value: sum(1 for i in issues if i.severity is s) for s in Severity})
