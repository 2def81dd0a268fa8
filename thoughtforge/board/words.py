"""The words a person reads on the page for what the files hold as internal values: a phase
("Phase 1 · Distilling"; a halt's reason is the catalogue's label), an agent call's step
("Distilling your brain dump"), and a project's working title (the brain dump's first words,
until Phase 1 names it). Any value without its own words (a step added later) is spelled out
from its name."""

from __future__ import annotations

import re

from thoughtforge.catalogue import halt_label
from thoughtforge.core.state import ChatMessage, Status
from thoughtforge.models import HaltReason, Phase

PHASE_WORDS: dict[Phase, str] = {
    Phase.BRAIN_DUMP: "Phase 1 · Brain dump",
    Phase.DISTILLING: "Phase 1 · Distilling",
    Phase.HUMAN_REVIEW: "Phase 1 · Reviewing the distillation",
    Phase.SPEC_BUILDING: "Phase 2 · Agreeing the spec",
    Phase.BUILDING: "Phase 3 · Building",
    Phase.POLISHING: "Phase 4 · Polishing",
    Phase.DONE: "Done",
    Phase.HALTED: "Halted",
}
STEP_WORDS: dict[str, str] = {
    "brain-dump-intake": "Distilling your brain dump",
    "spec-building": "Writing the spec proposal",
    "plan-build": "Writing the plan",
    "plan-completeness": "Judging the plan's completeness",
    "plan-review": "Reviewing the plan",
    "plan-fix": "Fixing the plan",
    "code-steps": "Listing the build steps",
    "code-build": "Building the code",
    "code-test-fix": "Fixing failing tests",
    "code-review": "Reviewing the code",
    "code-fix": "Fixing the code",
    "code-discovery": "Qualifying dependencies",
}
TITLE_WORDS = 8
TITLE_CHARS = 60


def phase_words(status: Status) -> str:
    """ "Phase 1 · Distilling"; a halt says where it stopped and why."""
    if status.phase is not Phase.HALTED:
        return PHASE_WORDS[status.phase]
    if status.halt_reason is HaltReason.HUMAN_TERMINATED:
        return "Terminated"
    where = f" in {PHASE_WORDS[status.halted_from]}" if status.halted_from else ""
    return f"Halted{where}: {halt_label(status.halt_reason)}"


def step_words(step: str) -> str:
    """The step's readable name; an unknown one (a plugin's) spelled out from its name."""
    return STEP_WORDS.get(step) or step.replace("-", " ").replace("_", " ").capitalize()


def working_title(status: Status, chat: list[ChatMessage], fallback: str) -> str:
    """The project's name, or until Phase 1 names it the first words of its brain dump."""
    if status.project_name:
        return status.project_name
    first = next((m.content for m in chat if m.role == "human"), "")
    words = re.sub(r"[#>*_`\[\]]+", " ", first).split()[:TITLE_WORDS]
    title = " ".join(words)
    if not title:
        return fallback
    if len(title) > TITLE_CHARS:
        title = title[:TITLE_CHARS].rsplit(" ", 1)[0]
    return f"{title}…" if len(words) == TITLE_WORDS or len(first.split()) > len(words) else title
