"""What a person can do about each halt of the polish loop, in words: the catalogue's halts
(`catalogue.halt_decisions`) say which decisions a halt takes, this says why one would take each.
Kept beside the catalogue, below every door, so the board, the workbench, the notifications and
the halt message itself say the same."""

from __future__ import annotations

from thoughtforge.models import HaltReason

HALT_ADVICE: dict[HaltReason, str] = {
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
