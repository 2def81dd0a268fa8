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


POLISH_HALT_ADVICE: dict[HaltReason, str] = {
    HaltReason.REVIEW_MALFORMED: (
        "the reviewer's answers could not be read: resume with another reviewer agent, or "
        "override to accept the deliverable as it is"
    ),
    HaltReason.FIX_OUTPUT_INVALID: (
        "two fixes in a row were refused and undone: a fixer that answered with something other "
        "than the whole document (a diff, a fragment, a broken structure), or in code mode one "
        "that touched the locked acceptance tests or the test runner's configuration; the "
        "deliverable was kept: resume with another agent, or override"
    ),
    HaltReason.CRITERION_WITHOUT_EVIDENCE: (
        "an acceptance criterion has no evidence that holds (a plan: no passage the review "
        "quoted stands in the plan; code: no test named after it passed in ThoughtForge's own "
        "run): make the deliverable meet it yourself or tell the agent (say), then resume; or "
        "override to accept the deliverable without it"
    ),
    HaltReason.GUARD_FIX_UNCHANGED: (
        "the fixer keeps returning the deliverable unchanged: tell it what to do (say), edit "
        "the deliverable yourself, or resume with another agent; override accepts it as it is"
    ),
    HaltReason.GUARD_FIX_CIRCULAR: (
        "the fixer keeps undoing its own changes (fixes restore earlier versions): decide the "
        "disputed point yourself (say, or edit the deliverable), then resume; or override"
    ),
    HaltReason.GUARD_ISSUES_PERSIST: (
        "the same issues survive every fix: read them in the polish log, fix or dismiss them "
        "yourself (say, or edit the deliverable) and resume, or override to accept it as it is"
    ),
    HaltReason.GUARD_FIX_REGRESSION: (
        "fixes add more issues than they resolve: read the polish log, then resume, override "
        "or terminate"
    ),
    HaltReason.GUARD_HALLUCINATION: (
        "issues spiked after a steady fall: read the last review; override if it invented them"
    ),
    HaltReason.GUARD_FABRICATION: (
        "the reviewer may be manufacturing issues on a nearly finished deliverable: override if "
        "the deliverable is good"
    ),
    HaltReason.GUARD_LOW_VALUE: (
        "the last iterations resolved too little for what they cost: override to accept the "
        "deliverable, or resume to pay for more iterations"
    ),
    HaltReason.BUDGET_EXHAUSTED: (
        "the project's budget would not cover the next agent call: raise it (thoughtforge "
        "budget ID --usd N, or the workbench) and resume, or terminate (in the polish loop, "
        "override accepts the deliverable as it is)"
    ),
    HaltReason.GUARD_MAX_ITERATIONS: (
        "the iteration ceiling was reached: override to accept, or raise polish.max_iterations "
        "and resume"
    ),
}
"""What a person can do about each halt of the polish loop, in the words the board, the
workbench and the notifications show beside the reason."""


# Halts of Phase 3 that the human answers with input (provide input or terminate); the others
# wait for resume / override / terminate.
INPUT_HALTS = frozenset({HaltReason.STUCK, HaltReason.BUILD_INCOMPLETE})
# A Phase 3 halt the human can override: build from the plan as it is, or terminate. Resuming
# would only ask the same gate the same question.
OVERRIDE_BUILD_HALTS = frozenset({HaltReason.PLAN_INCOMPLETE})
# Halts that wait for the person's decision or words, not for a cause to be fixed: they are
# notified as `human_needed`, as is every halt of Phases 1–2 (the person is in that loop).
DECISION_HALTS = (
    INPUT_HALTS
    | OVERRIDE_BUILD_HALTS
    | {
        HaltReason.SPEC_INCOMPLETE,
        HaltReason.BUDGET_EXHAUSTED,
    }
)


def build_halt_options(reason: HaltReason) -> str:
    """What the human can do about a Phase 3 halt, as the halt message lists it."""
    if reason in INPUT_HALTS:
        return "provide input, terminate"
    if reason in OVERRIDE_BUILD_HALTS:
        return "override, terminate"
    return "resume, terminate"


def halt_verbs(reason: HaltReason | None, halted_from: Phase | None) -> tuple[str, ...]:
    """The `thoughtforge` verbs that act on a project halted this way; none once terminated."""
    if reason is HaltReason.HUMAN_TERMINATED:
        return ()
    if reason in INPUT_HALTS:
        return ("answer", "terminate")
    if reason in OVERRIDE_BUILD_HALTS:
        return ("override", "terminate")
    if halted_from in (None, Phase.POLISHING):
        return ("resume", "override", "terminate")
    return ("resume", "terminate")


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
