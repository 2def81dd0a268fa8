"""The pipeline's phases as plain Python: Phase 1 `intake` and `intent`, Phase 2 `spec`, Phase 4
`polish/`, `human_decisions` (the person's decisions applied to the files), the `resources`
Phase 1 reads, and the shared `engine` every agent-driven phase runs on (ask, re-ask, check
against `safety`, commit, halt).

Phase 3 builders are deliverable-type plugins on the same engine, found by `plugin_loader`.
Imports `prompting`, `adapters`, `core` and the vocabulary; never Prefect, a flow or a plugin.
"""

from thoughtforge.phases import human_decisions
from thoughtforge.phases.chat import add_human_message, latest_ai_message, notice, notice_once
from thoughtforge.phases.engine import PhaseEngine, StepRunner, run_direct
from thoughtforge.phases.intake import DistillationMalformed, IntakeReply, distill, realign
from thoughtforge.phases.intent import IntentConfirmed, confirm_intent
from thoughtforge.phases.reasking import ask_until_usable, reask
from thoughtforge.phases.safety import Operation, OperationKind, SafetyViolation
from thoughtforge.phases.spec import (
    ConfirmOutcome,
    SpecIncomplete,
    confirm_spec,
    latest_proposal,
    propose,
)

__all__ = [
    "ConfirmOutcome",
    "DistillationMalformed",
    "IntakeReply",
    "IntentConfirmed",
    "Operation",
    "OperationKind",
    "PhaseEngine",
    "SafetyViolation",
    "SpecIncomplete",
    "StepRunner",
    "add_human_message",
    "ask_until_usable",
    "confirm_intent",
    "confirm_spec",
    "distill",
    "human_decisions",
    "latest_ai_message",
    "latest_proposal",
    "notice",
    "notice_once",
    "propose",
    "realign",
    "reask",
    "run_direct",
]
