"""The end of Phase 1: the confirmed distillation becomes `docs/intent.md`, and names the project.

The project name is the Objective's first sentence, cut at a word to `MAX_NAME_CHARS`; the
deliverable type is the one plugin the Deliverable Type's first line names (by its name or label),
and the default type when it names none or several.
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel

from thoughtforge.config import Config
from thoughtforge.core.atomic_write import write_text_atomic
from thoughtforge.core.project import INTENT_FILE, Project
from thoughtforge.core.staging import commit_own
from thoughtforge.core.state import CHAT_HISTORY_FILE, clear_chat, read_chat
from thoughtforge.core.transition import transition
from thoughtforge.errors import StateFileError, TransitionError
from thoughtforge.models import DEFAULT_DELIVERABLE_TYPE, PHASE_ONE, DeliverableType, Phase
from thoughtforge.phases.plugin_contract import Plugin
from thoughtforge.phases.plugin_loader import load_plugins
from thoughtforge.prompting import SectionedText

INTENT_SECTIONS = (
    "Deliverable Type",
    "Objective",
    "Assumptions",
    "Constraints",
    "Unknowns",
    "Open Questions",
)
MAX_NAME_CHARS = 60

_LIST_MARKER = re.compile(r"^(?:[-*+]|\d+[.)])\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


class IntentConfirmed(BaseModel):
    project_name: str
    deliverable_type: DeliverableType
    intent_path: Path


def confirm_intent(project: Project, config: Config) -> IntentConfirmed:
    """Lock the latest distillation as `docs/intent.md`, name the project and start Phase 2.

    The chat is cleared after the transition: a crash in between leaves Phase 1 turns that Phase 2
    ignores, where the other order would leave human_review with no distillation to confirm.
    """
    status = project.status()
    if status.phase is not Phase.HUMAN_REVIEW:
        raise TransitionError(
            f"project {project.id} is in '{status.phase}': only a distillation under human "
            "review can be confirmed"
        )
    distillation = _latest_distillation(project)
    document = SectionedText.parse(distillation)
    name = _project_name(document.get("Objective") or "") or project.id
    deliverable_type = detect_type(document.get("Deliverable Type") or "", load_plugins(config))
    path = project.dir / INTENT_FILE
    write_text_atomic(path, f"# Intent: {name}\n\n{distillation.strip()}\n")
    commit_own(project.dir, "Lock intent.md")
    transition(project, Phase.SPEC_BUILDING, project_name=name, deliverable_type=deliverable_type)
    clear_chat(project.dir)
    return IntentConfirmed(project_name=name, deliverable_type=deliverable_type, intent_path=path)


def _latest_distillation(project: Project) -> str:
    for message in reversed(read_chat(project.dir)):
        is_distillation = not SectionedText.parse(message.content).missing(INTENT_SECTIONS)
        if message.role == "ai" and message.phase in PHASE_ONE and is_distillation:
            return message.content
    raise StateFileError(
        project.dir / CHAT_HISTORY_FILE,
        "holds no distillation to confirm (human_review without one)",
    )


def _project_name(objective: str) -> str:
    """The Objective's first sentence, cut at a word to `MAX_NAME_CHARS`."""
    text = _LIST_MARKER.sub("", " ".join(re.sub(r"[*_`#>]", "", objective).split()))
    sentence = _SENTENCE_END.split(text, maxsplit=1)[0].rstrip(".!? ")
    if len(sentence) > MAX_NAME_CHARS:
        cut = sentence[: MAX_NAME_CHARS - 1].rsplit(" ", 1)[0]
        sentence = cut.rstrip(",;:—- ") + "…"
    return sentence[:1].upper() + sentence[1:]


def type_choices(plugins: dict[str, Plugin]) -> str:
    """The deliverable types as the intake prompt lists them for Phase 1 to choose from."""
    return "\n".join(f"- `{p.label}`: {p.manifest.detect}" for p in plugins.values())


def detect_type(section: str, plugins: dict[str, Plugin]) -> DeliverableType:
    """The type the section's first line names, when it names exactly one ("Plan or Code:
    unclear" is the default type)."""
    first_line = next((line for line in section.splitlines() if line.strip()), "").lower()
    words = set(re.findall(r"[a-z0-9_]+", first_line))
    named = [p.name for p in plugins.values() if {p.name, p.label.lower()} & words]
    return named[0] if len(named) == 1 else DEFAULT_DELIVERABLE_TYPE
