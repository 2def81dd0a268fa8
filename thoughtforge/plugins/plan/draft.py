"""What a plan build works from: the template, the spec, the human's guidance, the filled slots.

All of it is re-read from the files at the start of every run, since the human may have edited any
of them; `plan.md` is the only record of the slots filled so far.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from thoughtforge.core.own_files import read_own_text
from thoughtforge.core.project import INTENT_FILE, PLAN_FILE, SPEC_FILE
from thoughtforge.core.project_log import log_event
from thoughtforge.errors import PhaseHalt
from thoughtforge.models import HaltReason
from thoughtforge.phases.chat import NO_GUIDANCE
from thoughtforge.phases.engine import PhaseEngine
from thoughtforge.plugins.plan.slot_content import unfilled_reason
from thoughtforge.plugins.plan.template import (
    PlanTemplate,
    PlanTemplateError,
    Section,
    Slot,
    load_template,
)
from thoughtforge.plugins.plan.template_selection import NoPlanTemplatesError, select_template
from thoughtforge.prompting import SectionedText


class SectionProgress(BaseModel):
    heading: str
    filled: int
    slots: int


def progress_markdown(progress: list[SectionProgress]) -> str:
    """The build's progress as the run's page shows it: sections done, and a row per section."""
    rows = "\n".join(
        f"| {p.heading} | {p.filled}/{p.slots} | {'yes' if p.filled == p.slots else 'no'} |"
        for p in progress
    )
    done = sum(p.filled == p.slots for p in progress)
    return (
        f"## Plan build: {done}/{len(progress)} sections\n\n"
        f"| section | slots filled | done |\n| --- | --- | --- |\n{rows}\n"
    )


@dataclass
class Draft:
    """Read once at a run's start; `filled` grows as slots are accepted, and `guidance` is read
    again before each section (the person may write while the build runs)."""

    template: PlanTemplate
    spec: str
    filled: dict[str, str]
    guidance: str = NO_GUIDANCE

    def missing(self, section: Section) -> list[Slot]:
        return missing_slots(section, self.filled)

    def progress(self) -> list[SectionProgress]:
        return [
            SectionProgress(
                heading=s.heading, filled=len(s.slots) - len(self.missing(s)), slots=len(s.slots)
            )
            for s in self.template.sections()
        ]


def missing_slots(section: Section, filled: Mapping[str, str]) -> list[Slot]:
    """The section's slots without usable content yet."""
    return [s for s in section.slots if unfilled_reason(filled.get(s.id, "")) is not None]


def load_draft(engine: PhaseEngine, templates_dir: Path) -> Draft:
    """Template, spec and filled slots, re-read from the project's files."""
    template = _template(engine, templates_dir)
    return Draft(
        template=template,
        spec=engine.read(SPEC_FILE),
        filled=_filled_on_disk(engine, template),
    )


def _template(engine: PhaseEngine, templates_dir: Path) -> PlanTemplate:
    plan_type = SectionedText.parse(engine.read(INTENT_FILE)).get("Deliverable Type")
    try:
        choice = select_template(templates_dir, plan_type)
        template = load_template(choice.path)
    except (NoPlanTemplatesError, PlanTemplateError) as exc:
        raise PhaseHalt(HaltReason.FILE_SYSTEM_ERROR, str(exc)) from None
    log_event(engine.project.dir, "template_selected", template=choice.name, warning=choice.warning)
    if choice.warning:
        engine.say_once(choice.warning)
    return template


def _filled_on_disk(engine: PhaseEngine, template: PlanTemplate) -> dict[str, str]:
    path = engine.project.dir / PLAN_FILE
    if not path.exists():
        return {}
    try:
        on_disk = template.read_filled(read_own_text(path))
    except (OSError, UnicodeDecodeError, PlanTemplateError) as exc:
        raise PhaseHalt(
            HaltReason.FILE_SYSTEM_ERROR,
            f"{path} cannot be resumed: {exc}. Restore it from git, or delete it to build the "
            "plan again.",
        ) from None
    filled = {k: v for k, v in on_disk.items() if unfilled_reason(v) is None}
    log_event(engine.project.dir, "build_resumed", filled=len(filled), slots=len(template.slots))
    return filled
