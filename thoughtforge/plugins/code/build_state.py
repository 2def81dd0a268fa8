"""`code_build.json`: where a code build stands, so a killed or halted build continues.

The work itself is in the files and in git (each step's commit); this file records what the
files cannot say: the gate's verdict, the step list and which steps are committed, how many
test-fix cycles ran, and the stuck counters, which must survive a restart to mean anything.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from thoughtforge.plugins.code.stuck import StuckTracker

MAX_STEPS = 12

Title = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]


class BuildStep(BaseModel):
    model_config = ConfigDict(extra="ignore")

    title: Title
    details: str = ""
    done: bool = False


class StepList(BaseModel):
    """The agent's ordered steps (step mode)."""

    model_config = ConfigDict(extra="ignore")

    steps: list[BuildStep] = Field(min_length=1, max_length=MAX_STEPS)


GateVerdict = Literal["pending", "passed", "skipped", "failed", "overridden"]


class CodeBuildState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    gate: GateVerdict = "pending"
    steps: list[BuildStep] | None = None
    built: bool = False
    cycles: int = Field(0, ge=0)
    stuck: StuckTracker = StuckTracker()
    awaiting_input: bool = False
    """Halted `stuck`: the next run starts with the human's input and fresh counters."""

    def next_step(self) -> tuple[int, BuildStep] | None:
        """The first step not yet committed, numbered from 1."""
        return next(
            ((n, step) for n, step in enumerate(self.steps or [], start=1) if not step.done),
            None,
        )
