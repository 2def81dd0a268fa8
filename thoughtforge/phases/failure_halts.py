"""What a failure halts a project with, in every agent-driven phase: one map, so the same failure
halts with the same reason and the same words in Phases 1–2 (the flow's turn, `flows.turns`) and
in Phases 3–4 (the engine's run, `PhaseEngine`).

- a halt a step raised (`PhaseHalt`: a budget the next call could pass, a refused agent, a
  step's own reason) halts as it is;
- an agent that failed (`AgentFailure`) halts `agent_failure`; one whose every answer was cut off
  at its token limit (`ReplyCutOff`) halts `answer_unusable`, as an answer refused twice does
  (`UnusableReply`): the model, not the call, is the problem, and what helps is said;
- a project file that cannot be used (`OSError`: a full disk, a read-only folder, a link where a
  file of ThoughtForge's belongs) halts `file_system_error`;
- a git repository an agent reconfigured (`RepositoryTampered`: a hook, a config key) halts
  `file_system_error` too, in every phase and mode: it is a project file that cannot be used
  until the person removes it, and the deliverable's mode has nothing to do with it (Phase 1 has
  none yet; `plan_mode_violation` is a plan project's code, `PhaseEngine.commit`).
"""

from __future__ import annotations

from thoughtforge.errors import (
    AgentFailure,
    PhaseHalt,
    ProjectFileError,
    ReplyCutOff,
    RepositoryTampered,
    UnusableReply,
)
from thoughtforge.models import HaltReason
from thoughtforge.phases.reasking import UNUSABLE_HELP

HaltingFailure = PhaseHalt | AgentFailure | UnusableReply | RepositoryTampered | OSError
HALTING_FAILURES = (PhaseHalt, AgentFailure, UnusableReply, RepositoryTampered, OSError)
"""What a phase turns into a halt (`halt_for`) wherever it is met; anything else is a bug."""
FIX_AND_RESUME = "Fix the cause, then resume."


def halt_for(failure: HaltingFailure) -> PhaseHalt:
    """The halt `failure` makes, with its reason and words (the module's docstring says why)."""
    if isinstance(failure, PhaseHalt):
        return failure
    if isinstance(failure, ReplyCutOff):
        return PhaseHalt(HaltReason.ANSWER_UNUSABLE, f"{failure}. {UNUSABLE_HELP}")
    if isinstance(failure, AgentFailure):
        return PhaseHalt(HaltReason.AGENT_FAILURE, f"{failure}. {FIX_AND_RESUME}")
    if isinstance(failure, UnusableReply):
        return unusable_twice(failure)
    if isinstance(failure, RepositoryTampered):
        return PhaseHalt(HaltReason.FILE_SYSTEM_ERROR, f"{failure}. Remove them, then resume.")
    if isinstance(failure, ProjectFileError):  # its words name the path already
        return PhaseHalt(HaltReason.FILE_SYSTEM_ERROR, f"{failure}. {FIX_AND_RESUME}")
    return PhaseHalt(
        HaltReason.FILE_SYSTEM_ERROR,
        f"A project file could not be written: {failure}. {FIX_AND_RESUME}",
    )


def unusable_twice(refusal: UnusableReply, what: str = "The agent's answer") -> PhaseHalt:
    """The halt of a step whose agent answered unusably on every attempt: `what` was unusable."""
    return PhaseHalt(
        HaltReason.ANSWER_UNUSABLE, f"{what} was unusable twice: {refusal}. {UNUSABLE_HELP}"
    )
